import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
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

test('precompact counts every active fact, including those the index omits over budget', async () => {
  const dir = await larkspurProject({ indexTokenBudget: 400 })
  const index = join(dir, '.foundry', 'memory', 'INDEX.md')
  rmSync(index) // rebuilt by the hook, at the small budget
  const ran = await runHookBin('precompact', payload.preCompact(dir, 'manual'))
  assert.match(readFileSync(index, 'utf8'), /_\d+ more facts omitted over budget/)
  assert.match(ran.stdout, new RegExp(`^Foundry memory holds ${larkspurFacts().length} facts\\.`))
})

test('precompact on an empty memory names zero facts', async () => {
  const ran = await runHookBin('precompact', payload.preCompact(emptyProject()))
  assert.is(ran.code, 0, ran.stderr)
  assert.match(ran.stdout, /^Foundry memory holds 0 facts\./)
})

test.run()
