import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel, memoryStorage, type Retriever } from '@foundry/kernel'
import type { RetrievalDoc } from '@foundry/kernel/adapter'
import { calibrateScoreScale, distractors, memorySnapshotStore, retrieverSuite } from '@foundry/kernel/testing'
import { minisearchRetriever } from '../src/index.js'

type TestFn = Parameters<typeof retrieverSuite>[0]

const extra: RetrievalDoc[] = [
  {
    id: 'fact-0001',
    title: 'Kubernetes manifests live in the infra repository',
    body: 'Helm charts too.',
    tags: ['k8s'],
    type: 'convention',
    scope: 'project',
  },
  {
    id: 'fact-0002',
    title: 'Deployments require two approvals',
    body: 'Production releases are approved by two reviewers.',
    tags: ['release'],
    type: 'constraint',
    scope: 'project',
  },
  {
    id: 'fact-0003',
    title: 'Diffusion models are out of scope',
    body: 'We do not train image models.',
    tags: [],
    type: 'decision',
    scope: 'module:ml',
  },
]
const queries = [
  'kubernetse manifests',
  'deploym approvals',
  'diffusion',
  'logging structured',
  'auth OAuth tokens prefers',
  'payments stripe module',
  'zzz unknown',
  'infra repo',
  'caching redis',
]

/** A retriever whose store reads are counted, to prove a lazy open reads only part of the snapshot. */
function counted() {
  const store = memorySnapshotStore()
  const reads: string[] = []
  return { store: { ...store, read: (n: string) => (reads.push(n), store.read(n)) }, reads, names: store.names }
}

async function built(docs: RetrievalDoc[]) {
  const c = counted()
  const first = minisearchRetriever()
  first.attach!(c.store)
  await first.apply({ revision: 'r1', reset: true, upsert: docs, remove: [] })
  return { ...c, first }
}

const search = (r: Retriever, text: string) => r.search({ text, limit: 10 })

/** Documents over a large vocabulary (so the snapshot has many shards): made-up words from syllables. */
function vocabulary(n: number): RetrievalDoc[] {
  const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'pe', 'zu', 'ga', 'hi', 'jo', 'fu', 'be', 'do']
  const word = (k: number) => syllables[k % 16]! + syllables[(k >> 4) % 16]! + syllables[(k >> 8) % 16]! + 'x'
  return Array.from({ length: n }, (_, i) => ({
    id: `fact-${String(5000 + i)}`,
    title: `${word(i * 7)} ${word(i * 13 + 1)} ${word(i * 31 + 2)}`,
    body: Array.from({ length: 12 }, (_, j) => word(i * 17 + j * 101)).join(' '),
    tags: [],
    type: 'domain' as const,
    scope: 'project',
  }))
}

/** Same ids in the same order, scores within 1% (MiniSearch counts a discarded document in a term's frequency until a search meets it, so scores after changes differ slightly with posting order). */
function same(
  actual: Array<{ id: string; score: number }>,
  expected: Array<{ id: string; score: number }>,
  label: string,
) {
  assert.equal(
    actual.map((h) => h.id),
    expected.map((h) => h.id),
    label,
  )
  actual.forEach((h, i) =>
    assert.ok(
      Math.abs(h.score - expected[i]!.score) <= 1e-2 * Math.abs(expected[i]!.score),
      `${label}: score of ${h.id}`,
    ),
  )
}

test('a lazily opened snapshot answers exactly as the whole index (prefix, fuzzy, filters)', async () => {
  const docs = [...distractors(300), ...vocabulary(3000), ...extra]
  const { store, reads, first } = await built(docs)
  reads.length = 0
  const second = minisearchRetriever({ lazySearches: 100 })
  second.attach!(store)
  assert.is(await second.revision(), 'r1')
  for (const q of queries) assert.equal(await search(second, q), await search(first, q), q)
  assert.equal(
    await second.search({ text: 'approvals', limit: 5, type: 'constraint' }),
    await first.search({ text: 'approvals', limit: 5, type: 'constraint' }),
  )
  const shards = reads.filter((n) => /\/s\d+$/.test(n)).length
  const total = JSON.parse((await store.read('head'))!).shards as number
  assert.ok(total > 1, 'the snapshot is sharded')
  assert.ok(shards < total, `read ${shards} of ${total} shards`)
})

test('changes applied on a lazy snapshot are searchable and match a full index', async () => {
  const docs = [...distractors(300), ...extra]
  const { store, first } = await built(docs)
  const second = minisearchRetriever({ lazySearches: 100 })
  second.attach!(store)
  await second.revision()
  const changes = {
    revision: 'r2',
    upsert: [
      { ...extra[1]!, title: 'Deployments require three approvals' },
      {
        id: 'fact-0004',
        title: 'Kubernetes namespaces per team',
        body: '',
        tags: [],
        type: 'convention' as const,
        scope: 'project',
      },
    ],
    remove: ['fact-0003'],
  }
  await second.apply(changes)
  await first.apply(changes)
  assert.is(await second.revision(), 'r2')
  for (const q of [...queries, 'three approvals', 'namespaces'])
    same(await search(second, q), await search(first, q), q)
  assert.equal(await search(second, 'diffusion'), [], 'removed')
})

test('flush persists pending changes; a new process sees them; old builds are removed', async () => {
  const { store, first, names } = await built([...distractors(100), ...extra])
  const before = names().length
  await first.apply({
    revision: 'r2',
    upsert: [
      { id: 'fact-0009', title: 'Rollbacks are automated', body: '', tags: [], type: 'convention', scope: 'project' },
    ],
    remove: [],
  })
  await first.flush!(true)
  assert.is(names().length, before, 'the previous build was replaced, not kept')
  const next = minisearchRetriever()
  next.attach!(store)
  assert.is(await next.revision(), 'r2')
  assert.is((await search(next, 'rollback'))[0]?.id, 'fact-0009')
})

test('flush without `all` writes a snapshot only when replaying the changes would cost more', async () => {
  const { store, first } = await built([...distractors(50), ...extra])
  const head = () => store.read('head').then((h) => JSON.parse(h!).revision)
  await first.apply({
    revision: 'r2',
    upsert: [
      { id: 'fact-0009', title: 'Rollbacks are automated', body: '', tags: [], type: 'convention', scope: 'project' },
    ],
    remove: [],
  })
  await first.flush!()
  assert.is(await head(), 'r1', 'one change: the next process replays it')
  const many = Array.from({ length: 40 }, (_, i) => ({
    id: `fact-${2000 + i}`,
    title: `Note ${i}`,
    body: '',
    tags: [],
    type: 'domain' as const,
    scope: 'project',
  }))
  await first.apply({ revision: 'r3', upsert: many, remove: [] })
  await first.flush!()
  assert.is(await head(), 'r3', 'forty changes: snapshotted on the way out')
})

test('a snapshot whose parts are gone is forgotten at the first search', async () => {
  const store = memorySnapshotStore()
  await store.write('head', '{"format":"foundry-minisearch/4","build":"gone","revision":"r9","shards":4}')
  const r = minisearchRetriever()
  r.attach!(store)
  assert.is(await r.revision(), 'r9', 'a write-only process reads the head alone')
  assert.equal(await r.search({ text: 'anything', limit: 5 }), [])
  assert.is(await r.revision(), undefined, 'forgotten: the kernel re-indexes')
  await store.write('head', 'not json')
  const r2 = minisearchRetriever()
  r2.attach!(store)
  assert.is(await r2.revision(), undefined)
})

test('the kernel re-indexes once when the snapshot vanished under it', async () => {
  const storage = memoryStorage()
  const k1 = createKernel({ storage, retriever: minisearchRetriever() })
  await k1.memory.write({ title: 'Kubernetes manifests live in infra', body: 'x', type: 'convention' })
  assert.is((await k1.memory.search({ query: 'kubernetes' })).hits.length, 1)
  const k2 = createKernel({ storage, retriever: minisearchRetriever() })
  const head = JSON.parse((await storage.get('meta', 'retriever/minisearch/head'))!)
  await storage.delete('meta', `retriever/minisearch/${head.build}/docs`)
  assert.is((await k2.memory.search({ query: 'kubernetes' })).hits.length, 1)
})

test('internals: false (the public-API fallback) answers with the same hits and scores, full and lazy', async () => {
  // A known word is taken as written: `manifests` must not also match "manifesto" as a prefix.
  const manifesto = { ...extra[2]!, id: 'fact-0004', title: 'The platform manifesto', body: 'Written by the founders.' }
  const docs = [...distractors(300), ...vocabulary(1000), ...extra, manifesto]
  const { store, first } = await built(docs)
  const full = minisearchRetriever({ internals: false })
  await full.apply({ revision: 'r1', reset: true, upsert: docs, remove: [] })
  const lazy = minisearchRetriever({ internals: false, lazySearches: 100 })
  lazy.attach!(store)
  for (const q of [...queries, 'kubernet', 'module team standard', 'manifests']) {
    same(await search(full, q), await search(first, q), `full: ${q}`)
    same(await search(lazy, q), await search(first, q), `lazy: ${q}`)
  }
  same(
    await full.search({ text: 'approvals', limit: 5, type: 'constraint' }),
    await first.search({ text: 'approvals', limit: 5, type: 'constraint' }),
    'filtered',
  )
})

test('calibrateScoreScale measures the declared scoreScale 1: plain BM25', async () => {
  const measured = await calibrateScoreScale(minisearchRetriever())
  assert.ok(Math.abs(measured - 1) < 1e-3, `measured ${measured}`)
  assert.is(minisearchRetriever().scoreScale, 1)
})

test('capabilities follow the options', () => {
  assert.equal(minisearchRetriever().capabilities, { stemming: true, prefix: true, fuzzy: true, segmentation: true })
  assert.equal(minisearchRetriever({ prefixMinLength: 0, fuzzy: 0 }).capabilities, {
    stemming: true,
    prefix: false,
    fuzzy: false,
    segmentation: true,
  })
})

/** The retriever suite's cases by name, to run one against a deliberately wrong retriever. */
function suiteCases(make: () => Retriever): Map<string, () => Promise<void> | void> {
  const cases = new Map<string, () => Promise<void> | void>()
  const collect: TestFn = (name, fn) => void cases.set(name, fn)
  retrieverSuite(collect, make)
  return cases
}

test('the suite checks what is declared: a retriever declaring no abilities passes on exact words; a wrong scoreScale fails', async () => {
  for (const [name, fn] of suiteCases(() => ({ ...minisearchRetriever(), capabilities: {} })))
    await Promise.resolve(fn()).catch((e) => assert.unreachable(`${name}: ${e}`))
  const relevance = [...suiteCases(() => ({ ...minisearchRetriever(), scoreScale: 1.5 })).entries()].find(([name]) =>
    name.startsWith('relevance'),
  )![1]
  const failed = await Promise.resolve(relevance()).then(
    () => undefined,
    (e: Error) => e,
  )
  assert.match(failed?.message ?? 'passed', /scoreScale 1.5 declared, 1.000 measured/)
})

test.run()
