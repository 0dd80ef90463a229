import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { openProject } from '@foundry/project'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { emptyProject, larkspurFacts, larkspurProject, payload, runHookBin } from './helpers.js'

test('precompact prints the reminder naming the fact count, as plain text, and exits 0', async () => {
  const dir = await larkspurProject()
  const ran = await runHookBin('precompact', payload.preCompact(dir))
  assert.is(ran.code, 0, ran.stderr)
  assert.is(ran.json, undefined, 'plain text: the summariser reads it as custom instructions')
  assert.match(ran.stdout, new RegExp(`^Foundry memory holds ${larkspurFacts().length} facts\\.`))
  assert.match(ran.stdout, /memory_write/)
  assert.match(ran.stdout, /"Not yet in memory"/)
  assert.not.match(ran.stdout, /"decision"/, 'it never blocks')
})

test('precompact counts every active fact, however many INDEX.md lists, and with no cache at all', async () => {
  const dir = await larkspurProject({ indexTokenBudget: 400 })
  const all = larkspurFacts().length
  assert.match(
    (await runHookBin('precompact', payload.preCompact(dir, 'manual'))).stdout,
    new RegExp(`^Foundry memory holds ${all} facts\\.`),
  )
  rmSync(join(dir, '.foundry', 'memory', 'INDEX.md'))
  rmSync(join(dir, '.foundry', 'cache'), { recursive: true }) // the stored figures too: only the facts are left
  assert.match(
    (await runHookBin('precompact', payload.preCompact(dir, 'manual'))).stdout,
    new RegExp(`^Foundry memory holds ${all} facts\\.`),
  )
})

test('precompact follows writes made by another process', async () => {
  const dir = await larkspurProject()
  const { kernel } = await openProject({ root: dir })
  await kernel.memory.write({
    title: 'Reminder texts go out at 09:00 clinic time',
    body: 'Never at night, whatever the time zone of the server.',
    type: 'convention',
  })
  await kernel.close()
  const ran = await runHookBin('precompact', payload.preCompact(dir))
  assert.match(ran.stdout, new RegExp(`^Foundry memory holds ${larkspurFacts().length + 1} facts\\.`))
})

test('precompact on an empty memory names zero facts', async () => {
  const ran = await runHookBin('precompact', payload.preCompact(emptyProject()))
  assert.is(ran.code, 0, ran.stderr)
  assert.match(ran.stdout, /^Foundry memory holds 0 facts\./)
})

test.run()
