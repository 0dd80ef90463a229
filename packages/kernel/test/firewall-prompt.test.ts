import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { FIREWALL_FACTOR } from '../src/firewall.js'
import { kernelFor } from './helpers.js'

const long = (tokens: number) => 'word '.repeat(Math.ceil((tokens * 4) / 5))

test('the firewall passes a return within 3 × the handoff budget and blocks a larger one, saving it first', async () => {
  const k = kernelFor({ handoffSummaryTokenBudget: 100 })
  const small = await k.firewall.check({ text: long(250), agentType: 'reviewer', agentId: 'a1' })
  assert.is(small.outcome, 'within-budget')
  assert.is(small.limit, FIREWALL_FACTOR * 100)
  const big = await k.firewall.check({ text: long(900), agentType: 'reviewer', agentId: 'a1', sessionId: 's1' })
  assert.is(big.outcome, 'blocked')
  assert.ok(big.artifact?.includes('firewall/reviewer-a1'), 'saved under the firewall wave')
  assert.match(big.reason!, /saved unchanged to .*reviewer-a1/)
  const saved = await k.storage.get(
    'artifacts',
    `firewall/${big
      .artifact!.split('/')
      .pop()!
      .replace(/\.json$/, '')}`,
  )
  assert.is(saved?.data.text, long(900), 'the whole return is kept')
  const again = await k.firewall.check({ text: long(900), agentType: 'reviewer', agentId: 'a1', retry: true })
  assert.is(again.outcome, 'passed-after-block', 'never blocks twice in a row')
  const kinds = (await k.storage.readEvents()).map((e) => e.kind).filter((kind) => kind !== 'firewall_check')
  assert.equal(kinds, ['subagent_return', 'subagent_return', 'blackboard_write', 'gate_blocked', 'subagent_return'])
})

// Issue 14, item 6: two returns of one agent type in a session without agent_id shared one file; a
// very long agent_type saved nothing and still said "nothing is lost".
test('the firewall never saves a return over another: two agents of one type in one session, a 300-character agent type', async () => {
  const k = kernelFor({ handoffSummaryTokenBudget: 100 })
  const first = await k.firewall.check({ text: `first ${long(900)}`, agentType: 'reviewer', sessionId: 's1' })
  const second = await k.firewall.check({ text: `second ${long(900)}`, agentType: 'reviewer', sessionId: 's1' })
  assert.ok(first.artifact && second.artifact)
  assert.is.not(first.artifact, second.artifact)
  const text = async (path: string) =>
    (
      await k.storage.get(
        'artifacts',
        `firewall/${path
          .split('/')
          .pop()!
          .replace(/\.json$/, '')}`,
      )
    )?.data.text
  assert.is(await text(first.artifact!), `first ${long(900)}`)
  assert.is(await text(second.artifact!), `second ${long(900)}`)
  const longType = `plugin:${'very-long-agent-type-'.repeat(15)}`
  const third = await k.firewall.check({ text: long(900), agentType: longType, sessionId: 's1' })
  assert.ok(third.artifact, 'saved')
  assert.match(third.reason!, /saved unchanged to .*nothing is lost/)
  assert.is(await text(third.artifact!), long(900))
  assert.is(third.artifact!.split('/').pop()!.length <= 85, true)
})

test('the firewall says "nothing is lost" only when the return was saved', async () => {
  const k = kernelFor({ handoffSummaryTokenBudget: 100 })
  await k.storage.put('contracts', 'handoff.v1', { id: 'handoff.v1', schema: { type: 'object', required: ['never'] } })
  const blocked = await k.firewall.check({ text: long(900), agentType: 'reviewer' })
  assert.is(blocked.outcome, 'blocked')
  if (blocked.artifact) {
    assert.match(blocked.reason!, /nothing is lost/)
  } else {
    assert.not.match(blocked.reason!, /nothing is lost/)
    assert.match(blocked.reason!, /could not be saved for you/)
  }
})

test('enforcement off lets everything through', async () => {
  const k = kernelFor({ enforcement: 'off' })
  assert.is((await k.firewall.check({ text: long(5000) })).outcome, 'enforcement-off')
})

test('prompt context: relevant facts above the floor and triggered runbooks, or nothing at all', async () => {
  const k = kernelFor()
  await k.memory.write({
    title: 'Stripe webhooks are verified with the signing secret',
    body: 'Verify every Stripe webhook signature before parsing.',
    type: 'constraint',
    tags: ['stripe', 'webhook'],
  })
  for (let i = 0; i < 20; i++)
    await k.memory.write({
      title: `Routine note number ${String.fromCharCode(97 + i)}x`,
      body: 'General housekeeping.',
      type: 'glossary',
    })
  await k.runbooks.put({ slug: 'deploy', title: 'Deploy', trigger: 'deploy to production', body: 'Steps.' })
  const hit = await k.promptContext.forPrompt('Can you fix the Stripe webhook signature check?')
  assert.equal(
    hit?.facts.map((f) => f.fact.id),
    ['fact-0001'],
  )
  assert.match(hit!.text, /^Foundry memory: One stored fact matches this prompt \(relevance 3 or more\)/)
  assert.is(await k.promptContext.forPrompt('hi'), undefined, 'too short')
  assert.is(
    await k.promptContext.forPrompt('What is the weather like on Mars today?'),
    undefined,
    'nothing relevant: no context',
  )
  const runbook = await k.promptContext.forPrompt('please deploy to production now')
  assert.equal(
    runbook?.runbooks.map((r) => r.slug),
    ['deploy'],
  )
})

test.run()
