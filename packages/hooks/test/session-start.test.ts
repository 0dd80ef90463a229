import { existsSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { emptyProject, larkspurProject, payload, runHookBin } from './helpers.js'

test('session-start injects INDEX.md, exactly, as SessionStart additionalContext', async () => {
  const dir = await larkspurProject()
  const ran = await runHookBin('session-start', payload.sessionStart(dir))
  assert.is(ran.code, 0, ran.stderr)
  assert.equal(Object.keys(ran.json ?? {}), ['hookSpecificOutput'])
  assert.is(ran.json!.hookSpecificOutput.hookEventName, 'SessionStart')
  const index = readFileSync(join(dir, '.foundry', 'memory', 'INDEX.md'), 'utf8')
  assert.is(ran.json!.hookSpecificOutput.additionalContext, index)
})

test('session-start injects nothing else from memory: no fact body reaches the context', async () => {
  const dir = await larkspurProject()
  const context: string = (await runHookBin('session-start', payload.sessionStart(dir))).json!.hookSpecificOutput
    .additionalContext
  assert.ok(context.includes('Money is stored as integer minor units with an ISO currency code'), 'titles are listed')
  assert.not.ok(context.includes('float rounding produced one-penny mismatches'), 'bodies are not')
})

test('session-start builds INDEX.md when it is missing', async () => {
  const dir = await larkspurProject()
  const file = join(dir, '.foundry', 'memory', 'INDEX.md')
  rmSync(file)
  const ran = await runHookBin('session-start', payload.sessionStart(dir, 'resume'))
  assert.is(ran.code, 0, ran.stderr)
  assert.ok(existsSync(file))
  assert.is(ran.json!.hookSpecificOutput.additionalContext, readFileSync(file, 'utf8'))
})

test('session-start runs after compaction too (source "compact")', async () => {
  const dir = await larkspurProject()
  const ran = await runHookBin('session-start', payload.sessionStart(dir, 'compact'))
  assert.ok(ran.json!.hookSpecificOutput.additionalContext.startsWith('# Memory index'))
})

test('session-start on an empty memory injects the empty index', async () => {
  const dir = emptyProject()
  const ran = await runHookBin('session-start', payload.sessionStart(dir))
  assert.is(ran.code, 0, ran.stderr)
  assert.match(ran.json!.hookSpecificOutput.additionalContext, /No facts yet/)
})

test.run()
