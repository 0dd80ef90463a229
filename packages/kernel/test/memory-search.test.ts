import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { bm25Retriever, buildIndex, isFoundryError, memoryStorage, type Fact } from '../src/index.js'
import { sampleFact } from '../src/testing/index.js'
import { counting } from './catalog-helpers.js'
import { decision, kernelFor } from './helpers.js'

const NATO = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel']

test('search returns one block a hit, exactly as the seed shows', async () => {
  const k = kernelFor()
  await k.memory.write({
    title: 'Persistence layer uses Flyway, not Liquibase',
    body: 'Chosen for the plain-SQL migration format the team already reads.\nWhy: readable.\nHow to apply: SQL files.',
    type: 'decision',
    confidence: 'high',
    source: 'adr-0007',
  })
  const r = await k.memory.search({ query: 'flyway migrations' })
  assert.is(
    r.text,
    [
      '### fact-0001 · decision · confidence high',
      '**Persistence layer uses Flyway, not Liquibase**',
      'Chosen for the plain-SQL migration format the team already reads.\nWhy: readable.\nHow to apply: SQL files.',
      '_source: adr-0007 · scope: project_',
    ].join('\n'),
  )
  assert.is(r.hits.length, 1)
  assert.ok(r.hits[0]!.score > 0)
})

test('no hits: the seed text with the active fact count', async () => {
  const k = kernelFor()
  await k.memory.write({ title: 'Money is stored in integer cents', body: 'x', type: 'convention' })
  const r = await k.memory.search({ query: 'kubernetes helm' })
  assert.is(r.text, 'No stored fact matches "kubernetes helm". Memory holds 1 active facts.')
  assert.equal(r.hits, [])
})

test('a stemmed or differently inflected query finds its fact among many', async () => {
  const k = kernelFor()
  const subjects = ['billing', 'search', 'auth', 'uploads', 'emails', 'queues', 'metrics', 'caching']
  for (const [_i, s] of subjects.entries())
    await k.memory.write({
      title: `The ${s} service owns its database schema`,
      body: `Team ${s} migrates it.`,
      type: 'convention',
      scope: `module:${s}`,
    })
  await k.memory.write({
    title: 'Deployments require two approvals',
    body: 'Production releases need two reviewers.',
    type: 'constraint',
  })
  for (const q of ['deploying', 'approval needed', 'deployment approved', 'release reviewer']) {
    const r = await k.memory.search({ query: q })
    assert.is(r.hits[0]?.fact.title, 'Deployments require two approvals', q)
  }
})

test('type and scope filters; limit between 1 and 25, default from memoryRetrieval.maxFacts', async () => {
  const k = kernelFor({ memoryRetrieval: { maxFacts: 3 } })
  for (let i = 0; i < 6; i++)
    await k.memory.write({
      title: `Invoices rule ${NATO[i]} applies`,
      body: 'Invoices are special.',
      type: i % 2 ? 'constraint' : 'convention',
      scope: i < 3 ? 'module:billing' : 'project',
    })
  assert.is((await k.memory.search({ query: 'invoices' })).hits.length, 3, 'default limit from config')
  assert.is((await k.memory.search({ query: 'invoices', limit: 5 })).hits.length, 5)
  const typed = await k.memory.search({ query: 'invoices', type: 'constraint', limit: 25 })
  assert.ok(typed.hits.length === 3 && typed.hits.every((h) => h.fact.type === 'constraint'))
  const scoped = await k.memory.search({ query: 'invoices', scope: 'module:billing', limit: 25 })
  assert.ok(scoped.hits.length === 3 && scoped.hits.every((h) => h.fact.scope === 'module:billing'))
  for (const [input, message] of [
    [{ query: 'x', limit: 0 }, /limit must be >= 1/],
    [{ query: 'x', limit: 26 }, /limit must be <= 25/],
    [{ query: 'x', limit: 2.5 }, /limit must be integer/],
    [{ query: '' }, /query must not be empty/],
    [{ query: 'x', type: 'opinion' }, /type must be one of/],
    [{}, /missing required property "query"/],
  ] as const) {
    try {
      await k.memory.search(input)
      assert.unreachable(JSON.stringify(input))
    } catch (error) {
      assert.ok(isFoundryError(error, 'INVALID_INPUT'), String(error))
      assert.match((error as Error).message, message)
    }
  }
})

test('superseded facts are not returned', async () => {
  const k = kernelFor()
  await k.memory.write({ title: 'API timeout is 30 seconds', body: 'Gateway default.', type: 'constraint' })
  await k.memory.write({ title: 'API timeout is 60 seconds', body: 'Raised.', type: 'constraint' })
  const r = await k.memory.search({ query: 'api timeout' })
  assert.equal(
    r.hits.map((h) => h.fact.id),
    ['fact-0002'],
  )
})

test('memory_index rebuilds and reports as the seed shows; it picks up facts written by other means', async () => {
  const storage = memoryStorage()
  const k = kernelFor({}, { storage })
  await k.memory.write(decision('Persistence layer uses Flyway'))
  await storage.put(
    'facts',
    'fact-0002',
    sampleFact(2, { title: 'Hand written fact about Kafka', expires: undefined, supersedes: undefined }),
  )
  const r = await k.memory.index()
  assert.match(r.text, /^Rebuilt memory:\/\/meta\/index\n2\/2 facts listed, ~\d+ tokens, 0 omitted\.$/)
  assert.match(
    (await storage.get('meta', 'index'))!,
    /fact-0002 · high · Hand written fact about Kafka · module:billing/,
  )
  assert.is((await k.memory.search({ query: 'kafka' })).hits[0]?.fact.id, 'fact-0002')
})

const fact = (n: number, over: Partial<Fact>): Fact =>
  ({ ...sampleFact(n), expires: undefined, supersedes: undefined, title: `Fact number ${n}`, ...over }) as Fact

test('index order: type (seed order), then confidence, then newest first', () => {
  const facts = [
    fact(1, { type: 'glossary', confidence: 'high', created: '2026-01-01T00:00:00.000Z' }),
    fact(2, { type: 'decision', confidence: 'low', created: '2026-01-02T00:00:00.000Z' }),
    fact(3, { type: 'decision', confidence: 'high', created: '2026-01-01T00:00:00.000Z' }),
    fact(4, { type: 'decision', confidence: 'high', created: '2026-01-03T00:00:00.000Z' }),
    fact(5, { type: 'constraint', confidence: 'medium', created: '2026-01-04T00:00:00.000Z' }),
  ]
  const index = buildIndex(facts, 4000, '2026-06-01')
  const ids = [...index.text.matchAll(/- (fact-\d+)/g)].map((m) => m[1])
  assert.equal(ids, ['fact-0004', 'fact-0003', 'fact-0002', 'fact-0005', 'fact-0001'])
  assert.match(index.text, /## decision\n- fact-0004 · high · Fact number 4 · module:billing\n/)
  assert.equal([index.listed, index.total, index.omitted], [5, 5, 0])
})

test('index budget: the whole file stays within indexTokenBudget and the cut is a prefix of the order', () => {
  const facts = Array.from({ length: 300 }, (_, i) =>
    fact(i + 1, {
      type: 'convention',
      confidence: 'medium',
      title: `Convention number ${i + 1} about a fairly long subject line`,
      created: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    }),
  )
  for (const budget of [100, 500, 2000, 4000]) {
    const index = buildIndex(facts, budget, '2026-06-01')
    assert.ok(index.tokens <= budget, `${index.tokens} ≤ ${budget}`)
    assert.is(index.tokens, Math.ceil(index.text.length / 4))
    assert.is(index.listed + index.omitted, 300)
    assert.ok(index.omitted > 0)
    const ids = [...index.text.matchAll(/- (fact-\d+)/g)].map((m) => m[1])
    assert.equal(
      ids,
      Array.from({ length: index.listed }, (_, i) => `fact-${String(300 - i).padStart(4, '0')}`),
      'newest first, no gaps',
    )
    assert.match(
      index.text,
      new RegExp(`_${index.omitted} more facts omitted over budget: find them with memory_search._\\n$`),
    )
  }
})

test('write reports the index cost, with omitted facts over budget', async () => {
  const k = kernelFor({ indexTokenBudget: 100 })
  let last = ''
  for (let i = 0; i < 8; i++)
    last = (await k.memory.write({ title: `Glossary entry ${NATO[i]} means something`, body: 'x', type: 'glossary' }))
      .text
  const m = /^Index: (\d+)\/8 facts listed, ~(\d+) tokens, (\d+) omitted over budget\.$/m.exec(last)
  assert.ok(m, last)
  assert.ok(Number(m![2]) <= 100)
  assert.is(Number(m![1]) + Number(m![3]), 8)
})

test('readIndex builds INDEX.md when missing', async () => {
  const storage = memoryStorage()
  await storage.put('facts', 'fact-0001', fact(1, {}))
  const k = kernelFor({}, { storage })
  assert.is(await storage.get('meta', 'index'), undefined)
  assert.match(await k.memory.readIndex(), /fact-0001/)
  assert.ok(await storage.get('meta', 'index'))
})

test('a fresh kernel answers a miss and reads the index without reading every fact; an expiry passing rebuilds the index', async () => {
  const storage = memoryStorage()
  let now = Date.parse('2026-11-30T12:00:00Z')
  const first = kernelFor({}, { storage, now: () => new Date(now) })
  await first.memory.write({
    title: 'Freeze deploys during the sale',
    body: 'x',
    type: 'constraint',
    expires: '2026-12-01',
  })
  await first.memory.write({ title: 'Money is stored in integer cents', body: 'y', type: 'convention' })
  const { storage: counted, counts } = counting(storage)
  const fresh = kernelFor({}, { storage: counted, now: () => new Date(now) })
  assert.is(
    (await fresh.memory.search({ query: 'kubernetes' })).text,
    'No stored fact matches "kubernetes". Memory holds 2 active facts.',
  )
  assert.match(await fresh.memory.readIndex(), /Freeze deploys/)
  assert.is(counts.lists, 1, 'only the first sync of the retriever read the facts')
  now = Date.parse('2026-12-02T12:00:00Z')
  const later = kernelFor({}, { storage, now: () => new Date(now) })
  assert.not.match(await later.memory.readIndex(), /Freeze deploys/, 'rebuilt once the expiry passed')
  assert.is((await later.memory.search({ query: 'kubernetes' })).active, 1)
})

test('a store that refuses writes can still be searched (the stats a full read leaves are only a cache)', async () => {
  const storage = memoryStorage()
  await storage.put('facts', 'fact-0001', fact(1, { title: 'Kubernetes manifests live in infra' }))
  const readOnly = { ...storage, put: async () => Promise.reject(new Error('EROFS: read-only file system')) }
  const k = kernelFor({}, { storage: readOnly })
  const r = await k.memory.search({ query: 'kubernetes' })
  assert.is(r.hits[0]?.fact.id, 'fact-0001')
  assert.is(await k.memory.activeCount(), 1)
})

test('relevance: about one unit for each distinctive query word a fact contains, on any memory size', async () => {
  for (const size of [20, 400]) {
    const k = kernelFor()
    const storage = k.storage
    for (let i = 1; i <= size; i++)
      await storage.put(
        'facts',
        `fact-${String(i).padStart(4, '0')}`,
        fact(i, {
          title: `Routine note ${i}`,
          body: `General housekeeping item number ${i} for the team.`,
          type: 'glossary',
          confidence: 'low',
        }),
      )
    await storage.put(
      'facts',
      'fact-9000',
      fact(9000, {
        title: 'Ledger reconciliation runs nightly',
        body: 'The zebracorn job compares balances.',
        type: 'glossary',
        confidence: 'low',
      }),
    )
    const one = (await k.memory.search({ query: 'zebracorn' })).hits[0]!
    const three = (await k.memory.search({ query: 'zebracorn ledger reconciliation' })).hits[0]!
    assert.is(one.fact.id, 'fact-9000')
    assert.ok(
      one.relevance > 0.6 && one.relevance < 1.4,
      `one body word ≈ 1 (got ${one.relevance.toFixed(2)} at ${size})`,
    )
    assert.ok(three.relevance > 3, `three words, two in the title > 3 (got ${three.relevance.toFixed(2)} at ${size})`)
    const common = (await k.memory.search({ query: 'housekeeping team' })).hits[0]!
    assert.ok(common.relevance < 0.5, `words every fact has weigh little (got ${common.relevance.toFixed(2)})`)
    assert.is(await k.memory.activeCount(), size + 1)
  }
})

test('warm loads the retriever whole so the first search pays nothing', async () => {
  const storage = memoryStorage()
  const k1 = kernelFor({}, { storage })
  await k1.memory.write({ title: 'Kubernetes manifests live in infra', body: 'x', type: 'convention' })
  await k1.memory.search({ query: 'kubernetes' })
  let applied = 0
  const retriever = bm25Retriever() // the default, as k1's
  const apply = retriever.apply.bind(retriever)
  retriever.apply = async (c) => (applied++, apply(c))
  const k2 = kernelFor({}, { storage, retriever })
  await k2.memory.warm()
  assert.is((await k2.memory.search({ query: 'kubernetes' })).hits.length, 1)
  assert.is(applied, 0, 'restored from the snapshot, nothing re-indexed')
})

test.run()
