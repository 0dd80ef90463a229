import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  bm25Retriever,
  createKernel,
  isFoundryError,
  memoryStorage,
  renderFactBlock,
  type FoundryErrorCode,
} from '../src/index.js'
import { kernelFor } from './helpers.js'

const timeout = (seconds: number, extra: Record<string, unknown> = {}) => ({
  title: `API timeout is ${seconds} seconds`,
  body: `Gateways cut at ${seconds + 5} s.`,
  type: 'constraint',
  ...extra,
})
const cents = { title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' }

async function failure(fn: () => Promise<unknown>): Promise<{ code: FoundryErrorCode; message: string }> {
  try {
    await fn()
  } catch (error) {
    if (isFoundryError(error)) return { code: error.code, message: error.message }
    throw error
  }
  throw new Error('expected a FoundryError')
}

test('search by id: the facts named, whatever their status, in the order named; a status line after a block not active', async () => {
  const k = kernelFor()
  await k.memory.write(timeout(30)) // fact-0001
  await k.memory.write(timeout(60)) // fact-0002 supersedes fact-0001
  await k.memory.write(cents) // fact-0003
  const one = await k.memory.search({ query: 'fact-0003' })
  assert.is(one.text, renderFactBlock(await k.memory.get('fact-0003')))
  assert.equal(
    one.hits.map((h) => h.fact.id),
    ['fact-0003'],
  )
  assert.is(one.missing, undefined)

  const two = await k.memory.search({ query: 'fact-0003 fact-0001' })
  assert.is(
    two.text,
    `${renderFactBlock(await k.memory.get('fact-0003'))}\n\n${renderFactBlock(await k.memory.get('fact-0001'))}\nstatus: superseded by fact-0002`,
  )
  assert.equal(
    two.hits.map((h) => [h.fact.id, h.score]),
    [
      ['fact-0003', 0],
      ['fact-0001', 0],
    ],
  )

  // Separators, case, quotes and short numbers a model may write; type, scope and limit do not apply.
  const loose = await k.memory.search({ query: '`FACT-2`, "fact-0003"; fact-0002', type: 'glossary', limit: 1 })
  assert.equal(
    loose.hits.map((h) => h.fact.id),
    ['fact-0002', 'fact-0003'],
  )
})

test('search by id: unknown ids in one line; a query mixing ids and words is a keyword search', async () => {
  const k = kernelFor()
  await k.memory.write(cents)
  const some = await k.memory.search({ query: 'fact-0001 fact-0042 fact-0043' })
  assert.is(
    some.text,
    `${renderFactBlock(await k.memory.get('fact-0001'))}\n\nUnknown fact ids: fact-0042, fact-0043. List the ids with memory.list({ status: "all" }).`,
  )
  assert.equal(some.missing, ['fact-0042', 'fact-0043'])
  const none = await k.memory.search({ query: 'fact-0099' })
  assert.is(none.text, 'Unknown fact id: fact-0099. List the ids with memory.list({ status: "all" }).')
  assert.equal(none.hits, [])
  const mixed = await k.memory.search({ query: 'fact-0001 cents' })
  assert.equal(
    mixed.hits.map((h) => h.fact.id),
    ['fact-0001'],
    'found by the word',
  )
  assert.ok(mixed.hits[0]!.score > 0, 'ranked by the retriever')
})

test('forget: the fact leaves the index, the retriever and search; stored with status forgotten, the reason and when', async () => {
  const k = kernelFor()
  await k.memory.write(cents)
  await k.memory.write({ title: 'Invoices are numbered per year', body: 'INV-2026-0001.', type: 'convention' })
  assert.is((await k.memory.search({ query: 'integer cents' })).hits.length, 1, 'the retriever holds it before')
  const result = await k.memory.forget('fact-0001', '  We store   decimals now. ')
  assert.match(result.text, /^forgotten: fact-0001\nIndex: 1\/1 facts listed, ~\d+ tokens, 0 omitted over budget\.$/)
  assert.is(result.reason, 'We store decimals now.')
  assert.equal(result.index.total, 1)

  const stored = await k.storage.get('facts', 'fact-0001')
  assert.is(stored?.status, 'forgotten')
  assert.is(stored?.forgottenReason, 'We store decimals now.')
  assert.is(stored?.forgotten, result.forgotten)
  assert.match(result.forgotten, /^2026-11-30T12:00:\d\d\.000Z$/)

  assert.equal((await k.memory.search({ query: 'integer cents' })).hits, [], 'gone from search')
  assert.not.match(await k.memory.readIndex(), /fact-0001/, 'gone from INDEX.md')
  assert.is(await k.memory.activeCount(), 1)
  assert.equal(
    (await k.memory.list()).map((f) => f.id),
    ['fact-0002'],
  )
  assert.equal(
    (await k.memory.list({ status: 'forgotten' })).map((f) => f.id),
    ['fact-0001'],
  )
  assert.equal(
    (await k.memory.list({ status: 'superseded' })).map((f) => f.id),
    [],
  )
  assert.is((await k.memory.list({ status: 'all' })).length, 2)

  // Still found by id, with what happened to it.
  assert.match(
    (await k.memory.search({ query: 'fact-0001' })).text,
    /\nstatus: forgotten on 2026-11-30: We store decimals now\.$/,
  )
  // Its id is never reused, and the same statement can be written again.
  const again = await k.memory.write(cents)
  assert.is(again.action, 'created')
  assert.is(again.id, 'fact-0003')
})

test('forget: unknown, superseded, already forgotten and reasonless are clear errors that change nothing', async () => {
  const k = kernelFor()
  await k.memory.write(timeout(30))
  await k.memory.write(timeout(60))
  assert.equal(await failure(() => k.memory.forget('fact-0009', 'wrong')), {
    code: 'NOT_FOUND',
    message: 'No fact fact-0009. List the ids with memory.list({ status: "all" }).',
  })
  assert.equal(await failure(() => k.memory.forget('fact-0001', 'wrong')), {
    code: 'INVALID_INPUT',
    message:
      'fact-0001 is superseded by fact-0002 and already out of the index and search; forget the active fact of its history instead',
  })
  const empty = await failure(() => k.memory.forget('fact-0002', ' \n '))
  assert.is(empty.code, 'INVALID_INPUT')
  assert.match(empty.message, /^reason must not be empty/)
  const badId = await failure(() => k.memory.forget('0002', 'wrong'))
  assert.is(badId.code, 'INVALID_INPUT')
  assert.match(badId.message, /memory_forget input: id /)
  await k.memory.forget('fact-0002', 'Timeouts moved to the gateway config')
  assert.equal(await failure(() => k.memory.forget('fact-0002', 'again')), {
    code: 'INVALID_INPUT',
    message: 'fact-0002 is already forgotten (Timeouts moved to the gateway config); nothing to do',
  })
  assert.is((await k.memory.get('fact-0001')).status, 'superseded', 'the fact it replaced stays superseded')
})

test('forgetting a fact that superseded another says the older one stays superseded', async () => {
  const k = kernelFor()
  await k.memory.write(timeout(30))
  await k.memory.write(timeout(60))
  const { text } = await k.memory.forget('fact-0002', 'Measured wrong')
  assert.match(text, /\nfact-0001, which it superseded, stays superseded; write its statement again to restore it\.$/)
  assert.equal(await k.memory.list(), [])
})

test('history: the supersedes chain both ways, oldest first, each with its state', async () => {
  const k = kernelFor()
  await k.memory.write(timeout(30)) // 1
  await k.memory.write(cents) // 2
  await k.memory.write(timeout(60)) // 3 supersedes 1
  await k.memory.write(timeout(90)) // 4 supersedes 3
  await k.memory.write(timeout(120)) // 5 supersedes 4
  await k.memory.forget('fact-0005', 'No such limit any more')
  for (const id of ['fact-0001', 'fact-0003', 'fact-0005']) {
    const h = await k.memory.history(id)
    assert.equal(
      h.chain.map((e) => [e.fact.id, e.state]),
      [
        ['fact-0001', 'superseded'],
        ['fact-0003', 'superseded'],
        ['fact-0004', 'superseded'],
        ['fact-0005', 'forgotten'],
      ],
      id,
    )
    assert.is(h.id, id)
  }
  const { text } = await k.memory.history('fact-0004')
  assert.is(
    text,
    [
      'fact-0001 · 2026-11-30 · superseded by fact-0003 · API timeout is 30 seconds',
      'fact-0003 · 2026-11-30 · superseded by fact-0004 · API timeout is 60 seconds',
      'fact-0004 · 2026-11-30 · superseded by fact-0005 · API timeout is 90 seconds',
      'fact-0005 · 2026-11-30 · forgotten: No such limit any more · API timeout is 120 seconds',
    ].join('\n'),
  )
  assert.is(
    (await k.memory.history('fact-0002')).text,
    'fact-0002 · 2026-11-30 · active · Money is stored in integer cents',
  )
  assert.is((await failure(() => k.memory.history('fact-0077'))).code, 'NOT_FOUND')
})

test('an edit: the same text with other tags, superseding the fact it names, is a new version, not a duplicate; a forgotten fact cannot be superseded', async () => {
  const k = kernelFor()
  await k.memory.write({ ...cents, tags: ['money'] })
  const edited = await k.memory.write({ ...cents, tags: ['money', 'db'], confidence: 'high', supersedes: 'fact-0001' })
  assert.equal([edited.action, edited.id, edited.supersedes], ['created', 'fact-0002', 'fact-0001'])
  assert.equal(
    (await k.memory.history('fact-0002')).chain.map((e) => [e.fact.id, e.state, e.fact.tags]),
    [
      ['fact-0001', 'superseded', ['money']],
      ['fact-0002', 'active', ['money', 'db']],
    ],
  )
  assert.is(
    (await k.memory.write({ ...cents, tags: ['other'] })).action,
    'duplicate',
    'without supersedes, still a duplicate',
  )
  await k.memory.forget('fact-0002', 'wrong')
  assert.equal(await failure(() => k.memory.write({ ...cents, supersedes: 'fact-0002' })), {
    code: 'INVALID_INPUT',
    message: 'supersedes names fact-0002, which is forgotten; omit supersedes to write the fact anew',
  })
})

test('forget and history are traced: memory_forget and memory_history events with duration and outcome', async () => {
  const k = kernelFor()
  await k.memory.write(cents)
  await k.memory.history('fact-0001')
  await k.memory.forget('fact-0001', 'wrong')
  await failure(() => k.memory.forget('fact-0001', 'wrong'))
  const events = (await k.storage.readEvents()).filter((e) => e.kind === 'memory_forget' || e.kind === 'memory_history')
  assert.equal(
    events.map((e) => [e.kind, e.data?.status, e.data?.id]),
    [
      ['memory_history', 'ok', 'fact-0001'],
      ['memory_forget', 'ok', 'fact-0001'],
      ['memory_forget', 'INVALID_INPUT', undefined],
    ],
  )
  assert.ok(events.every((e) => typeof e.data?.ms === 'number'))
})

test('a forgotten fact stays out of a new process: the retriever rebuilt from storage, the index, the count', async () => {
  const storage = memoryStorage()
  const first = createKernel({ storage })
  await first.memory.write(cents)
  await first.memory.write({
    title: 'Invoices are numbered per year',
    body: 'INV-2026-0001; integer cents too.',
    type: 'convention',
  })
  await first.memory.forget('fact-0001', 'wrong')
  const second = createKernel({ storage, retriever: bm25Retriever() })
  assert.equal(
    (await second.memory.search({ query: 'integer cents' })).hits.map((h) => h.fact.id),
    ['fact-0002'],
  )
  assert.is(await second.memory.activeCount(), 1)
  assert.not.match(await second.memory.readIndex(), /fact-0001/)
  assert.equal(
    (await second.memory.list({ status: 'forgotten' })).map((f) => [f.id, f.forgottenReason]),
    [['fact-0001', 'wrong']],
  )
})

test.run()
