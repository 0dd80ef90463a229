import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { bm25Retriever } from '../src/index.js'
import type { Bm25RetrieverOptions } from '../src/bm25/retriever.js'
import type { RetrievalDoc, RetrievalQuery } from '../src/retrieval.js'
import { memorySnapshotStore } from '../src/testing/index.js'

/** A deterministic memory of `n` facts: words drawn from a skewed vocabulary, so some terms have thousands of postings. */
function memoryOf(n: number): { docs: RetrievalDoc[]; words: string[] } {
  let seed = 42
  const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) as number
  const syllables = ['ka', 'lo', 'mi', 'ren', 'tor', 'sel', 'vin', 'qua', 'dex', 'pha', 'nu', 'gri', 'ost', 'éla']
  const words = Array.from({ length: 4000 }, (_, i) => {
    let word = ''
    for (let s = 0; s < 2 + (i % 3); s++) word += syllables[Math.floor(next() * syllables.length)]
    return `${word}${i % 7 === 0 ? 'ing' : i % 5 === 0 ? 'ed' : ''}`
  })
  const pick = () => words[Math.floor(next() ** 3 * words.length)]!
  const docs = Array.from({ length: n }, (_, i): RetrievalDoc => {
    const body = Array.from({ length: 20 + Math.floor(next() * 60) }, pick).join(' ')
    return {
      id: `fact-${String(i + 1).padStart(4, '0')}`,
      title: Array.from({ length: 3 + Math.floor(next() * 5) }, pick).join(' '),
      body,
      tags: next() < 0.3 ? [pick()] : [],
      type: next() < 0.5 ? 'decision' : 'domain',
      scope: next() < 0.2 ? 'module:billing' : 'project',
    }
  })
  return { docs, words }
}

const { docs, words } = memoryOf(10_000)
const queries = [
  ...words.slice(0, 12).map((w, i) => `${w} ${words[(i * 37) % words.length]} ${words[(i * 101) % words.length]}`),
  ...words
    .slice(0, 40)
    .filter((_, i) => i % 3 === 0)
    .map((w) => w.slice(0, 5)), // prefixes
  ...words
    .slice(100, 140)
    .filter((_, i) => i % 4 === 0)
    .map((w) => `${w.slice(0, 2)}x${w.slice(2)}`), // typos
  `${words[3]} ${words[3]} ${words[900]}`,
]

for (const [name, options] of [
  ['default', {}],
  ['english, ranked postgres', { analysis: 'english', ranking: 'postgres' }],
] as Array<[string, Bm25RetrieverOptions]>)
  test(`bm25Retriever (${name}): a restored snapshot of 10k facts gives the same hits, in the same order, as the index it was taken of`, async () => {
    const store = memorySnapshotStore()
    const built = bm25Retriever(options)
    built.attach!(store)
    await built.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
    // The index it was taken of, as built (the writer reads its own snapshot back after writing it).
    const reference = bm25Retriever(options)
    await reference.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
    const restored = bm25Retriever(options)
    restored.attach!(store)
    assert.is(await restored.revision(), '1')
    let hits = 0
    for (const text of queries)
      for (const filter of [{}, { type: 'domain' as const }, { scope: 'module:billing' }]) {
        const query: RetrievalQuery = { text, limit: 10, ...filter }
        const expected = await reference.search(query)
        hits += expected.length
        assert.equal(await restored.search(query), expected, `${text} ${JSON.stringify(filter)}`)
      }
    assert.ok(hits > queries.length * 10, `the queries find facts (${hits} hits)`)
    assert.is(await restored.revision(), '1', 'nothing dropped')
  })

test('bm25Retriever: a new process reads the postings blocks its query needs, not the whole index; warm() reads those that fit what is kept', async () => {
  const store = memorySnapshotStore()
  const built = bm25Retriever()
  built.attach!(store)
  await built.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  const blocks = store.names().filter((n) => /\/postings-\d+$/.test(n))
  assert.ok(blocks.length >= 10, `${blocks.length} blocks`)
  const read: string[] = []
  const counting = { ...store, read: (name: string) => (read.push(name), store.read(name)) }
  const restored = bm25Retriever()
  restored.attach!(counting)
  const query = { text: words[0]!, limit: 5 }
  assert.equal(await restored.search(query), await built.search(query))
  assert.is(read.filter((n) => /\/postings-\d+$/.test(n)).length, 1, 'one word, one block')
  read.length = 0
  const blocksRead = () => read.filter((n) => /\/postings-\d+$/.test(n))
  // Every block fits what a server keeps (2 MiB of characters by default): warm() reads them all.
  const warmed = bm25Retriever()
  warmed.attach!(counting)
  await warmed.warm!()
  assert.is(blocksRead().length, blocks.length, 'warm() reads every block')
  read.length = 0
  assert.equal(await warmed.search(query), await built.search(query))
  assert.is(blocksRead().length, 0, 'the search reads no block')
  // Without postings (a server before it answers initialize): the parts every search reads, no block.
  read.length = 0
  const mapped = bm25Retriever()
  mapped.attach!(counting)
  await mapped.warm!({ postings: false })
  assert.ok(
    read.some((n) => n.endsWith('/table')),
    'the tables are read',
  )
  assert.is(blocksRead().length, 0, 'warm({ postings: false }) reads no block')
  read.length = 0
  assert.equal(await mapped.search(query), await built.search(query))
  assert.ok(!read.some((n) => n.endsWith('/table')), 'the search reads no table again')
  assert.is(blocksRead().length, 1, 'the search reads its own block')
  // Keeping less, warm() stops at the bound, and a search reads the block of a word past it.
  read.length = 0
  const bounded = bm25Retriever({ kept: { blockChars: 1 } })
  bounded.attach!(counting)
  await bounded.warm!()
  assert.is(blocksRead().length, 1, 'warm() reads the first block, then stops: it holds more than the bound')
  // A title word late in the alphabet: its block is far past the first.
  const last = [...new Set(docs.flatMap((d) => d.title.split(' ')))]
    .filter((w) => /^[a-z]+$/.test(w))
    .sort()
    .at(-1)!
  read.length = 0
  assert.equal(await bounded.search({ text: last, limit: 5 }), await built.search({ text: last, limit: 5 }))
  assert.is(blocksRead().length, 1, 'the search reads its own block')
})

test('bm25Retriever: keeping little of a snapshot (its blocks and decoded postings dropped and read again), through writes, removals, a compaction and its own snapshot, gives the hits and scores of an index never snapshotted', async () => {
  const { docs: all } = memoryOf(3000)
  const [first, later] = [all.slice(0, 2400), all.slice(2400)]
  const store = memorySnapshotStore()
  const writer = bm25Retriever()
  writer.attach!(store)
  await writer.apply({ revision: '1', reset: true, upsert: first, remove: [] })
  const reference = bm25Retriever() // no store: never snapshotted, every posting in memory
  await reference.apply({ revision: '1', reset: true, upsert: first, remove: [] })
  const reads = new Map<string, number>()
  const counting = { ...store, read: (name: string) => (reads.set(name, (reads.get(name) ?? 0) + 1), store.read(name)) }
  const lean = bm25Retriever({ kept: { postingsBytes: 16_384, blockChars: 40_000 }, snapshotEvery: 1e9 })
  lean.attach!(counting)
  let searched = 0
  const same = async (label: string) => {
    for (const text of queries)
      for (const filter of [{}, { type: 'domain' as const }]) {
        const query: RetrievalQuery = { text, limit: 10, ...filter }
        const expected = await reference.search(query)
        searched += expected.length
        assert.equal(await lean.search(query), expected, `${label}: ${text} ${JSON.stringify(filter)}`)
      }
  }
  await same('restored')
  const replaced = { ...first[5]!, body: `${first[7]!.body} ${first[9]!.body}` }
  const steps = [
    { upsert: later.slice(0, 300), remove: [] },
    { upsert: [replaced], remove: first.slice(10, 40).map((d) => d.id) },
    // 330 of 3,301 slots dead: the index compacts, the snapshot's postings decoded first
    { upsert: later.slice(300), remove: first.slice(100, 400).map((d) => d.id) },
  ]
  for (const [i, step] of steps.entries()) {
    const changes = { revision: String(i + 2), ...step }
    await reference.apply(changes)
    await lean.apply(changes)
    await same(`after step ${i + 1}`)
  }
  await lean.flush!(true) // its own snapshot, then read back
  await same('after its own snapshot')
  assert.is(await lean.revision(), '4')
  assert.ok(searched > queries.length * 10, `the queries find facts (${searched} hits)`)
  const blocks = [...reads].filter(([name]) => /\/postings-\d+$/.test(name))
  assert.ok(
    blocks.some(([, n]) => n > 1),
    'some block was dropped and read again',
  )
})

/** A snapshot of `docs` taken by one retriever, and a second one restored from it (a new process), with its blocks' names. */
async function restoredSnapshot() {
  const store = memorySnapshotStore()
  const built = bm25Retriever()
  built.attach!(store)
  await built.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  const restored = bm25Retriever()
  restored.attach!(store)
  assert.is(await restored.revision(), '1')
  return { store, restored, blocks: store.names().filter((n) => /\/postings-\d+$/.test(n)) }
}

test('bm25Retriever: a postings block removed under a process drops the snapshot at the search that needs it', async () => {
  const { store, restored, blocks } = await restoredSnapshot()
  for (const name of blocks) await store.remove(name)
  assert.equal(await restored.search({ text: words[0]!, limit: 5 }), [])
  assert.is(await restored.revision(), undefined, 'dropped: the kernel re-indexes')
})

test('bm25Retriever: a postings block removed before warm() reads it drops the snapshot, and warm() does not throw', async () => {
  const { store, restored, blocks } = await restoredSnapshot()
  await store.remove(blocks.at(-1)!)
  await restored.warm!()
  assert.is(await restored.revision(), undefined, 'dropped: the kernel re-indexes')
})

test.run()
