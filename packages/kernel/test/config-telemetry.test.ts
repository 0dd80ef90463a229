import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  createKernel,
  DEFAULT_CONFIG,
  definePlugin,
  isFoundryError,
  memoryPlugin,
  memoryStorage,
  resolveConfig,
} from '../src/index.js'
import { parseConfig } from '../src/schema/config.js'
import { storageTelemetry } from '../src/telemetry.js'

test('defaults as DESIGN.md §3 lists them', () => {
  assert.equal(resolveConfig(undefined), DEFAULT_CONFIG)
  assert.equal(
    [
      DEFAULT_CONFIG.indexTokenBudget,
      DEFAULT_CONFIG.handoffSummaryTokenBudget,
      DEFAULT_CONFIG.memoryRetrieval.maxFacts,
      DEFAULT_CONFIG.promptContext,
      DEFAULT_CONFIG.enforcement,
    ],
    [4000, 300, 8, { maxFacts: 5, minScore: 3, minPromptLength: 12 }, 'gate'],
  )
})

test('profiles are presets under the explicit keys; nested keys merge', () => {
  const mvp = resolveConfig({ profile: 'startup-mvp' })
  assert.is(mvp.enforcement, 'warn')
  assert.is(mvp.handoffSummaryTokenBudget, 300, 'the firewall budget is kept')
  assert.is(resolveConfig({ profile: 'startup-mvp', enforcement: 'gate' }).enforcement, 'gate')
  assert.equal(resolveConfig({ promptContext: { minScore: 5 } }).promptContext, {
    maxFacts: 5,
    minScore: 5,
    minPromptLength: 12,
  })
  assert.equal(
    resolveConfig(resolveConfig({ indexTokenBudget: 2000 })),
    resolveConfig({ indexTokenBudget: 2000 }),
    'a resolved config resolves to itself',
  )
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

test("a resolved configuration resolves to itself (a kernel given a project's is not checked again); a copy is checked", () => {
  const config = resolveConfig({ profile: 'strict', indexTokenBudget: 1500 })
  assert.is(resolveConfig(config), config)
  assert.is(createKernel({ storage: memoryStorage(), config }).config, config)
  assert.equal(resolveConfig({ ...config }), config, 'a copy resolves to the same values')
  assert.throws(() => resolveConfig({ ...config, indexTokenBudget: 'many' }), /indexTokenBudget/)
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
  const throwing = createKernel({
    storage,
    telemetry: {
      record: () => {
        throw new Error('sync throw')
      },
    },
  })
  await throwing.record('session_end')
  assert.ok(true, 'a synchronous throw is swallowed too')
})

test('events carry a timestamp, a kind and data; every operation records its duration and outcome', async () => {
  const storage = memoryStorage()
  const k = createKernel({ storage, now: () => new Date('2026-11-30T00:00:00Z') })
  await k.memory.write({ title: 'Money is stored in integer cents', body: 'x', type: 'convention' })
  await k.memory.search({ query: 'money' })
  await k.record('subagent_return', { tokens: 120 })
  await k.record('marbles.run_started', { run: 'r1' })
  const events = await storage.readEvents()
  const ms = events.map((e) => e.data?.ms)
  assert.ok(typeof ms[0] === 'number' && typeof ms[1] === 'number', 'operations carry their duration')
  assert.equal(
    events.map((e) => ({ ...e, data: { ...e.data, ms: undefined } })),
    [
      {
        ts: '2026-11-30T00:00:00.000Z',
        kind: 'memory_write',
        data: { action: 'created', id: 'fact-0001', ms: undefined, status: 'ok' },
      },
      { ts: '2026-11-30T00:00:00.000Z', kind: 'memory_search', data: { hits: 1, ms: undefined, status: 'ok' } },
      { ts: '2026-11-30T00:00:00.000Z', kind: 'subagent_return', data: { tokens: 120, ms: undefined } },
      { ts: '2026-11-30T00:00:00.000Z', kind: 'marbles.run_started', data: { run: 'r1', ms: undefined } },
    ],
  )
})

test('a failing operation records its error code, and the error reaches the caller unchanged', async () => {
  const storage = memoryStorage()
  const k = createKernel({ storage })
  const error = await k.memory.write({ title: '', body: 'x', type: 'nonsense' }).catch((e: unknown) => e)
  assert.ok(isFoundryError(error, 'INVALID_INPUT'))
  await k.runbooks.get({ slug: 'missing' }).catch(() => {})
  const events = await storage.readEvents()
  assert.equal(
    events.map((e) => [e.kind, e.data?.status]),
    [
      ['memory_write', 'INVALID_INPUT'],
      ['runbook_get', 'NOT_FOUND'],
    ],
  )
})

test("a plugin of a consumer is set up after the kernel's own, uses them, and its operations are traced", async () => {
  const storage = memoryStorage()
  const notes = definePlugin({
    name: 'notes',
    needs: [memoryPlugin],
    setup: (host) => {
      const memory = host.use(memoryPlugin)
      return {
        async add(text: string) {
          await host.storage.appendLog('notes/all', [text])
          return (await memory.activeCount()) + 1
        },
        local: () => 'not traced',
      }
    },
    trace: { add: { kind: 'notes.add', data: (n) => ({ n }) } },
  })
  const k = createKernel({ storage, plugins: [notes] })
  assert.is(await k.use(notes).add('hello'), 1)
  assert.is(k.use(notes).local(), 'not traced')
  assert.equal((await storage.readLog('notes/all', 0)).entries, ['hello'])
  assert.equal(
    (await storage.readEvents()).map((e) => [e.kind, e.data?.n, e.data?.status]),
    [['notes.add', 1, 'ok']],
  )
  const other = definePlugin({ name: 'other', setup: () => ({}) })
  assert.throws(() => k.use(other), /No plugin "other"/)
  assert.throws(() => createKernel({ storage, plugins: [notes, notes] }), /Two kernel plugins are named "notes"/)
  const needy = definePlugin({ name: 'needy', needs: [notes], setup: () => ({}) })
  assert.throws(() => createKernel({ storage, plugins: [needy] }), /needs "notes"/)
  const sneaky = definePlugin({ name: 'sneaky', setup: (host) => (host.use(memoryPlugin), {}) })
  assert.throws(() => createKernel({ storage, plugins: [sneaky] }), /without listing it in needs/)
})

test('errors are recognised by brand and code, even from another copy of the kernel', () => {
  const foreign = Object.assign(new Error('from another bundle'), {
    code: 'NOT_FOUND',
    [Symbol.for('foundry.error')]: true,
  })
  assert.ok(isFoundryError(foreign, 'NOT_FOUND'))
  assert.not.ok(isFoundryError(foreign, 'CONFLICT'))
  assert.not.ok(isFoundryError(Object.assign(new Error('look-alike'), { code: 'NOT_FOUND' })), 'no brand, not ours')
  assert.not.ok(
    isFoundryError(Object.assign(new Error('bad code'), { code: 'NOPE', [Symbol.for('foundry.error')]: true })),
  )
})

test.run()
