import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createKernel, memoryStorage } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { allEvents, emptyProject, events, messageOf, payload, runHookBin } from './helpers.js'

/** The one return the firewall saved in `dir` (its name ends in a hash of the return), or a path that does not exist. */
const saved = (dir: string, agent = 'code-reviewer-a91c2e') => {
  const folder = join(dir, '.foundry', 'blackboard', 'firewall')
  const found = existsSync(folder)
    ? readdirSync(folder).filter((f) => f.startsWith(`${agent}-`) && f.endsWith('.json'))
    : []
  return join(folder, found[0] ?? `${agent}.json`)
}

test('a return within 3 × handoffSummaryTokenBudget (900 tokens) passes silently and is recorded', async () => {
  const dir = emptyProject()
  const ran = await runHookBin('subagent-firewall', payload.subagentStop(dir, messageOf(900)))
  assert.is(ran.code, 0, ran.stderr)
  assert.is(ran.stdout, '')
  const [event, ...rest] = events(dir)
  assert.equal(rest, [])
  assert.is(event!.kind, 'subagent_return')
  assert.equal(event!.data, {
    agentType: 'code-reviewer',
    agentId: 'a91c2e',
    sessionId: 'sess-7f3a',
    tokens: 900,
    limit: 900,
    outcome: 'within-budget',
    enforcement: 'gate',
  })
})

test('an oversized return is blocked with the instruction, and saved to the blackboard first', async () => {
  const dir = emptyProject()
  const message = messageOf(2400)
  const ran = await runHookBin('subagent-firewall', payload.subagentStop(dir, message))
  assert.is(ran.code, 0, ran.stderr)
  assert.equal(Object.keys(ran.json!).sort(), ['decision', 'reason'])
  assert.is(ran.json!.decision, 'block')
  const reason: string = ran.json!.reason
  assert.match(reason, /~2400 tokens; a subagent may return at most 900/)
  assert.match(reason, /\.foundry\/blackboard\/firewall\/code-reviewer-a91c2e-[0-9a-f]{12}\.json/)
  assert.match(reason, /a summary of at most 300 tokens/)
  assert.match(reason, /blocking question/)
  const artifact = JSON.parse(readFileSync(saved(dir), 'utf8'))
  assert.is(artifact.text, message, 'the return is saved unchanged')
  assert.is(artifact.schema, 'handoff.v1')
  assert.match(artifact.producedBy, /^code-reviewer-a91c2e-[0-9a-f]{12}$/)
  assert.is(artifact.agentId, 'a91c2e')
  assert.is(artifact.sessionId, 'sess-7f3a')
  assert.is(artifact.tokens, 2400)
  assert.match(artifact.summary, /^Oversized return of code-reviewer \(~2400 tokens, limit 900\)/)
  const check = await createKernel({ storage: memoryStorage() }).contracts.validate({
    schema: 'handoff.v1',
    data: artifact,
  })
  assert.ok(check.valid, `the artifact satisfies the built-in handoff.v1: ${check.violations.join('; ')}`)
  assert.not.ok(
    existsSync(join(dir, '.foundry', 'contracts')),
    "the contract is the kernel's built-in: nothing is installed in the project",
  )
  const kinds = events(dir).map((e) => e.kind)
  assert.equal(kinds, ['subagent_return', 'blackboard_write', 'gate_blocked'])
  const blocked = events(dir)[2]!.data!
  assert.match(blocked.artifact as string, /^\.foundry\/blackboard\/firewall\/code-reviewer-a91c2e-[0-9a-f]{12}\.json$/)
  assert.is(blocked.tokens, 2400)
})

test('stop_hook_active: never blocks twice in a row', async () => {
  const dir = emptyProject()
  const ran = await runHookBin(
    'subagent-firewall',
    payload.subagentStop(dir, messageOf(5000), { stop_hook_active: true }),
  )
  assert.is(ran.code, 0, ran.stderr)
  assert.is(ran.stdout, '')
  assert.equal(
    events(dir).map((e) => [e.kind, e.data?.outcome]),
    [['subagent_return', 'passed-after-block']],
  )
  assert.not.ok(existsSync(saved(dir)))
})

test('enforcement off lets everything through; warn blocks exactly as gate does', async () => {
  const off = emptyProject({ enforcement: 'off' })
  const passed = await runHookBin('subagent-firewall', payload.subagentStop(off, messageOf(5000)))
  assert.is(passed.stdout, '')
  assert.equal(
    events(off).map((e) => [e.kind, e.data?.outcome]),
    [['subagent_return', 'enforcement-off']],
  )
  const reasons: string[] = []
  for (const enforcement of ['warn', 'gate']) {
    const dir = emptyProject({ enforcement })
    const ran = await runHookBin('subagent-firewall', payload.subagentStop(dir, messageOf(5000)))
    assert.is(ran.json?.decision, 'block', enforcement)
    assert.ok(existsSync(saved(dir)))
    reasons.push(ran.json!.reason)
  }
  assert.is(reasons[0], reasons[1])
})

test('the startup-mvp profile lowers enforcement to warn and keeps the firewall', async () => {
  const dir = emptyProject({ profile: 'startup-mvp' })
  const ran = await runHookBin('subagent-firewall', payload.subagentStop(dir, messageOf(1000)))
  assert.is(ran.json?.decision, 'block')
  assert.equal(events(dir).find((e) => e.kind === 'gate_blocked')?.data?.enforcement, 'warn')
})

test('the limit follows handoffSummaryTokenBudget', async () => {
  const dir = emptyProject({ handoffSummaryTokenBudget: 100 })
  const ran = await runHookBin('subagent-firewall', payload.subagentStop(dir, messageOf(301)))
  assert.match(ran.json!.reason, /at most 300 \(3 × handoffSummaryTokenBudget 100\)/)
  assert.match(ran.json!.reason, /a summary of at most 100 tokens/)
  const under = emptyProject({ handoffSummaryTokenBudget: 100 })
  assert.is((await runHookBin('subagent-firewall', payload.subagentStop(under, messageOf(300)))).stdout, '')
})

test('agent names are sanitised into one safe path segment', async () => {
  const dir = emptyProject()
  const ran = await runHookBin(
    'subagent-firewall',
    payload.subagentStop(dir, messageOf(1000), { agent_type: 'plugin:../../reviewer', agent_id: 'x/y' }),
  )
  assert.is(ran.json?.decision, 'block')
  assert.ok(existsSync(saved(dir, 'plugin-reviewer-x-y')))
})

test('a project file handoff.v1 does not replace the built-in: the return is still saved against it', async () => {
  const dir = emptyProject()
  mkdirSync(join(dir, '.foundry', 'contracts'), { recursive: true })
  writeFileSync(
    join(dir, '.foundry', 'contracts', 'handoff.v1.json'),
    JSON.stringify({ type: 'object', required: ['verdict'] }),
  )
  const ran = await runHookBin('subagent-firewall', payload.subagentStop(dir, messageOf(1000)))
  assert.is(ran.json?.decision, 'block')
  assert.match(
    ran.json!.reason,
    /saved unchanged to \.foundry\/blackboard\/firewall\/code-reviewer-a91c2e-[0-9a-f]{12}\.json/,
  )
  assert.is(JSON.parse(readFileSync(saved(dir), 'utf8')).schema, 'handoff.v1')
})

test('when the artifact cannot be saved it still blocks, and says so', async () => {
  const dir = emptyProject()
  // A file where the firewall's wave folder should be: the blackboard cannot write there.
  mkdirSync(join(dir, '.foundry', 'blackboard'), { recursive: true })
  writeFileSync(join(dir, '.foundry', 'blackboard', 'firewall'), 'not a folder')
  const ran = await runHookBin('subagent-firewall', payload.subagentStop(dir, messageOf(1000)))
  assert.is(ran.code, 0, ran.stderr)
  assert.is(ran.json?.decision, 'block')
  assert.match(
    ran.json!.reason,
    /could not be saved for you \(.*blackboard\/firewall is a file.*\): write your full result with blackboard_write first/,
  )
  assert.match(ran.json!.reason, /1\. the path of the blackboard artifact holding your full result;/)
  assert.equal(
    events(dir).map((e) => e.kind),
    ['subagent_return', 'gate_blocked'],
  )
  assert.is(events(dir)[1]!.data!.artifact, undefined)
})

test('a SubagentStop without last_assistant_message counts as an empty return', async () => {
  const dir = emptyProject()
  const input = payload.subagentStop(dir, '') as Record<string, unknown>
  delete input.last_assistant_message
  const ran = await runHookBin('subagent-firewall', input)
  assert.is(ran.code, 0, ran.stderr)
  assert.is(ran.stdout, '')
  assert.is(events(dir)[0]!.data!.tokens, 0)
})

test('the kernel times the check: one firewall_check event with its duration and outcome', async () => {
  const dir = emptyProject()
  await runHookBin('subagent-firewall', payload.subagentStop(dir, 'short answer'))
  const timing = allEvents(dir).filter((e) => e.kind === 'firewall_check')
  assert.is(timing.length, 1)
  assert.is(timing[0]!.data?.outcome, 'within-budget')
  assert.is(timing[0]!.data?.status, 'ok')
  assert.type(timing[0]!.data?.ms, 'number')
})

test.run()
