import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  contextOf,
  emptyProject,
  events,
  HOOK_BIN,
  larkspurProject,
  messageOf,
  payload,
  plainFolder,
  run,
  runHookBin,
} from './helpers.js'

const HOOKS = ['session-start', 'prompt-context', 'subagent-firewall', 'precompact', 'session-end']

test('malformed stdin: one clear line on stderr, nothing on stdout, exit 1 (non-blocking), for every hook', async () => {
  const dir = emptyProject()
  for (const hook of HOOKS) {
    for (const [stdin, expected] of [
      ['{"session_id": "s", "cwd": ', /stdin is not JSON/],
      ['', /stdin is empty/],
      ['[1, 2]', /not an object/],
    ] as const) {
      const ran = await runHookBin(hook, stdin, { FOUNDRY_ROOT: dir })
      assert.is(ran.code, 1, `${hook} ${stdin}`)
      assert.is(ran.stdout, '')
      assert.match(ran.stderr, new RegExp(`^foundry-hook ${hook}: `))
      assert.match(ran.stderr, expected)
      assert.is(ran.stderr.trimEnd().split('\n').length, 1, 'one line')
    }
  }
})

test('a payload of another event, or a field of the wrong type, is named', async () => {
  const dir = emptyProject()
  const wrong = await runHookBin('prompt-context', payload.sessionStart(dir))
  assert.is(wrong.code, 1)
  assert.match(
    wrong.stderr,
    /received a SessionStart event but this hook handles UserPromptSubmit; check the event it is wired to in hooks.json/,
  )
  const typed = await runHookBin('prompt-context', { ...payload.prompt(dir, 'x'), prompt: 42 })
  assert.is(typed.code, 1)
  assert.match(typed.stderr, /field "prompt" must be a string, got number/)
  const missing = await runHookBin('prompt-context', { hook_event_name: 'UserPromptSubmit', cwd: dir })
  assert.match(missing.stderr, /UserPromptSubmit input has no "prompt"/)
  const flag = await runHookBin('subagent-firewall', { ...payload.subagentStop(dir, 'ok'), stop_hook_active: 'yes' })
  assert.match(flag.stderr, /"stop_hook_active" must be a boolean/)
})

test('no failure ever exits 2 (which would block the session)', async () => {
  const dir = emptyProject()
  writeFileSync(join(dir, '.foundry', 'config.json'), '{ "enforcement": "strictest" }')
  for (const hook of [...HOOKS, 'no-such-hook']) {
    for (const stdin of ['garbage', JSON.stringify(payload.prompt(dir, 'the stripe webhook handler'))]) {
      const ran = await runHookBin(hook, stdin, { FOUNDRY_ROOT: dir })
      assert.ok(ran.code === 0 || ran.code === 1, `${hook}: exit ${ran.code}`)
    }
  }
})

test('an invalid config.json is one line naming the file and the key', async () => {
  const dir = emptyProject()
  writeFileSync(join(dir, '.foundry', 'config.json'), '{ "enforcement": "strictest" }')
  const ran = await runHookBin('subagent-firewall', payload.subagentStop(dir, messageOf(5000)))
  assert.is(ran.code, 1)
  assert.is(ran.stdout, '', 'a broken configuration fails open: the return passes')
  assert.match(ran.stderr, /config\.json.*enforcement/)
})

test('unknown hook and --help', async () => {
  const unknown = await run(HOOK_BIN, ['post-tool-use'], '{}')
  assert.is(unknown.code, 1)
  assert.match(
    unknown.stderr,
    /^foundry-hook post-tool-use: unknown hook; use one of session-start, prompt-context, subagent-firewall, precompact, session-end\n$/,
  )
  const help = await run(HOOK_BIN, ['--help'], undefined)
  assert.is(help.code, 0)
  assert.match(help.stdout, /^Usage: foundry-hook </)
  // dist/bin/foundry-hook.js, the path settings written for earlier builds name, runs the same bin.
  const former = await run(HOOK_BIN.replace(/\.cjs$/, '.js'), ['post-tool-use'], '{}')
  assert.equal(former, unknown)
})

test('outside a Foundry project every hook does nothing, silently', async () => {
  const dir = plainFolder()
  const inputs: Record<string, unknown> = {
    'session-start': payload.sessionStart(dir),
    'prompt-context': payload.prompt(dir, 'the stripe webhook handler created duplicate payments'),
    'subagent-firewall': payload.subagentStop(dir, messageOf(5000)),
    precompact: payload.preCompact(dir),
    'session-end': payload.sessionEnd(dir),
  }
  for (const hook of HOOKS) {
    const ran = await runHookBin(hook, inputs[hook])
    assert.equal([ran.code, ran.stdout, ran.stderr], [0, '', ''], hook)
  }
})

test('the project is found above cwd, from CLAUDE_PROJECT_DIR, or at FOUNDRY_ROOT', async () => {
  const dir = await larkspurProject()
  const sub = join(dir, 'src', 'billing')
  mkdirSync(sub, { recursive: true })
  const prompt = 'the stripe webhook handler created duplicate payments'
  assert.ok(contextOf(await runHookBin('prompt-context', payload.prompt(sub, prompt))), 'walks up from cwd')
  const elsewhere = plainFolder()
  assert.ok(
    contextOf(await runHookBin('prompt-context', payload.prompt(elsewhere, prompt), { CLAUDE_PROJECT_DIR: dir })),
    'CLAUDE_PROJECT_DIR',
  )
  assert.ok(
    contextOf(await runHookBin('prompt-context', payload.prompt(elsewhere, prompt), { FOUNDRY_ROOT: dir })),
    'FOUNDRY_ROOT',
  )
})

test('a metrics folder that cannot be written never breaks a hook', async () => {
  const dir = await larkspurProject()
  const metrics = join(dir, '.foundry', 'metrics')
  rmSync(metrics, { recursive: true, force: true })
  // events.jsonl is a folder, so appending fails even for root; and the folder is read-only for everyone else.
  mkdirSync(join(metrics, 'events.jsonl'), { recursive: true })
  chmodSync(metrics, 0o555)
  try {
    const prompt = await runHookBin(
      'prompt-context',
      payload.prompt(dir, 'the stripe webhook handler created duplicate payments'),
    )
    assert.is(prompt.code, 0, prompt.stderr)
    assert.ok(contextOf(prompt))
    const blocked = await runHookBin('subagent-firewall', payload.subagentStop(dir, messageOf(5000)))
    assert.is(blocked.code, 0, blocked.stderr)
    assert.is(blocked.json?.decision, 'block')
    assert.match(blocked.json!.reason, /saved unchanged to \.foundry\/blackboard\/firewall\//)
    for (const [hook, input] of [
      ['session-start', payload.sessionStart(dir)],
      ['precompact', payload.preCompact(dir)],
      ['session-end', payload.sessionEnd(dir)],
    ] as const) {
      const ran = await runHookBin(hook, input)
      assert.is(ran.code, 0, `${hook}: ${ran.stderr}`)
      assert.is(ran.stderr, '', hook)
    }
  } finally {
    chmodSync(metrics, 0o755)
  }
})

test('session-end records session_end with the reason, and prints nothing', async () => {
  const dir = emptyProject()
  const ran = await runHookBin('session-end', payload.sessionEnd(dir, 'clear'))
  assert.equal([ran.code, ran.stdout], [0, ''])
  assert.equal(
    events(dir).map((e) => [e.kind, e.data]),
    [['session_end', { sessionId: 'sess-7f3a', reason: 'clear' }]],
  )
})

test.run()
