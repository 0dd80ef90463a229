import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel, DEFAULT_CONFIG, isFoundryError, memoryStorage, parseConfig, resolveConfig, storageTelemetry } from '../src/index.js'

test('defaults as DESIGN.md §3 lists them', () => {
  assert.equal(resolveConfig(undefined), DEFAULT_CONFIG)
  assert.equal(
    [DEFAULT_CONFIG.indexTokenBudget, DEFAULT_CONFIG.handoffSummaryTokenBudget, DEFAULT_CONFIG.memoryRetrieval.maxFacts, DEFAULT_CONFIG.promptContext, DEFAULT_CONFIG.storage],
    [4000, 300, 8, { maxFacts: 5, minScore: 3, minPromptLength: 12 }, 'fs'],
  )
})

test('profiles are presets under the explicit keys; nested keys merge', () => {
  const mvp = resolveConfig({ profile: 'startup-mvp' })
  assert.is(mvp.enforcement, 'warn')
  assert.is(mvp.handoffSummaryTokenBudget, 300, 'the firewall budget is kept')
  assert.is(resolveConfig({ profile: 'startup-mvp', enforcement: 'gate' }).enforcement, 'gate')
  assert.equal(resolveConfig({ promptContext: { minScore: 5 } }).promptContext, { maxFacts: 5, minScore: 5, minPromptLength: 12 })
  assert.equal(resolveConfig(resolveConfig({ indexTokenBudget: 2000 })), resolveConfig({ indexTokenBudget: 2000 }), 'a resolved config resolves to itself')
})

test('bad config names the file and the key', () => {
  for (const [raw, message] of [
    [{ indexTokenBudget: 'lots' }, /Invalid \.foundry\/config\.json: indexTokenBudget must be integer/],
    [{ enforcement: 'strict' }, /enforcement must be one of off \| warn \| gate/],
    [{ colour: 1 }, /unknown property "colour"/],
    [{ promptContext: { minScore: -1 } }, /promptContext\.minScore must be >= 0/],
    [{ profile: 'enterprise' }, /profile must be one of default \| startup-mvp \| strict \(got "enterprise"\)/],
    [[], /Invalid \.foundry\/config\.json/],
  ] as const) {
    try {
      resolveConfig(raw)
      assert.unreachable(JSON.stringify(raw))
    } catch (error) {
      assert.ok(isFoundryError(error, 'INVALID_INPUT'), String(error))
      assert.match((error as Error).message, message)
    }
  }
})

test('parseConfig: a missing file gives the defaults; text that is not JSON names the file', () => {
  assert.equal(parseConfig(undefined), DEFAULT_CONFIG)
  assert.is(parseConfig('{"indexTokenBudget": 2000}').indexTokenBudget, 2000)
  try {
    parseConfig('{ nope', '/p/.foundry/config.json')
    assert.unreachable()
  } catch (error) {
    assert.ok(isFoundryError(error, 'INVALID_INPUT'))
    assert.match((error as Error).message, /^Invalid \/p\/\.foundry\/config\.json: not JSON/)
  }
})

test('telemetry never throws into the caller: a failing event log loses metrics, not work', async () => {
  const storage = memoryStorage()
  const failing = { ...storage, appendEvent: async () => Promise.reject(new Error('ENOSPC: no space left on device')) }
  const errors: unknown[] = []
  const k = createKernel({ storage: failing, telemetry: storageTelemetry(failing, (e) => errors.push(e)) })
  const r = await k.memory.write({ title: 'Money is stored in integer cents', body: 'x', type: 'convention' })
  assert.is(r.action, 'created')
  await k.record('gate_blocked', { reason: 'test' })
  assert.is(errors.length, 2)
  const throwing = createKernel({ storage, telemetry: { record: () => { throw new Error('sync throw') } } })
  await throwing.record('session_end')
  assert.ok(true, 'a synchronous throw is swallowed too')
})

test('events carry a timestamp, a kind from the seed list and data', async () => {
  const storage = memoryStorage()
  const k = createKernel({ storage, now: () => new Date('2026-11-30T00:00:00Z') })
  await k.memory.write({ title: 'Money is stored in integer cents', body: 'x', type: 'convention' })
  await k.memory.search({ query: 'money' })
  await k.record('subagent_return', { tokens: 120 })
  assert.equal(await storage.readEvents(), [
    { ts: '2026-11-30T00:00:00.000Z', kind: 'memory_write', data: { action: 'created', id: 'fact-0001' } },
    { ts: '2026-11-30T00:00:00.000Z', kind: 'memory_search', data: { hits: 1 } },
    { ts: '2026-11-30T00:00:00.000Z', kind: 'subagent_return', data: { tokens: 120 } },
  ])
})

test.run()
