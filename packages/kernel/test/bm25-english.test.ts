import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { englishTerm, englishTokens } from '../src/bm25/english.js'
import { bm25Retriever } from '../src/index.js'
import type { RetrievalDoc } from '../src/retrieval.js'
import { memorySnapshotStore, retrieverSuite } from '../src/testing/index.js'

retrieverSuite(test, () => bm25Retriever({ analysis: 'english' }), { prefix: 'bm25Retriever (english): ' })

/** The terms of a text as the english analysis indexes them, in order. */
const terms = (text: string) => englishTokens(text).flatMap((w) => englishTerm(w) ?? [])

test("english analysis: the terms PostgreSQL's to_tsvector('english') gives", () => {
  // SELECT to_tsvector('english', …) on PostgreSQL 18 lists the same lexemes.
  assert.equal(terms("The state-of-the-art IL-6 assay, e.g. a 2.5-fold rise and/or what's running"), [
    'state-of-the-art',
    'state',
    'art',
    'il',
    '-6',
    'assay',
    'e.g',
    '2.5',
    'fold',
    'rise',
    'and/or',
    'run',
  ])
  // Hosts with hyphens, signed numbers, a path after a hyphenated word, a URL (adapter-postgres'
  // ranking-parity test checks these against a real server's lexemes, through their scores).
  assert.equal(terms('H2A.Z-H2B and +1 nucleosomes, PD-1/PD-L1, see http://epigen.molgen.mpg.de/nuchunter for -3.1'), [
    'h2a.z-h2b',
    '+1',
    'nucleosom',
    'pd',
    '-1',
    '/pd-l1',
    'see',
    'epigen.molgen.mpg.de/nuchunter',
    'epigen.molgen.mpg.de',
    '/nuchunter',
    '-3.1',
  ])
  assert.is(englishTerm('Generously'), 'generous', "Snowball's English stem (Porter2), not Porter's generous → gener")
  assert.is(englishTerm('about'), null, "PostgreSQL's stop word, not one of Lucene's")
  assert.is(englishTerm('COVID19'), 'covid19', 'letters and digits kept as they are')
})

const docs: RetrievalDoc[] = [
  {
    id: 'a',
    title: 'Retries',
    body: 'A job is retried about three times.',
    tags: [],
    type: 'domain',
    scope: 'project',
  },
  { id: 'b', title: 'Generators', body: 'Generously sized pools.', tags: [], type: 'domain', scope: 'project' },
]

test('english analysis: a search uses its stop words and stems', async () => {
  const english = bm25Retriever({ analysis: 'english' })
  const plain = bm25Retriever()
  for (const r of [english, plain]) await r.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  assert.equal(await english.search({ text: 'about', limit: 5 }), [])
  assert.equal(
    (await plain.search({ text: 'about', limit: 5 })).map((h) => h.id),
    ['a'],
  )
  // Porter stems both words to `gener`; Snowball's English stems keep them apart.
  assert.equal(
    (await english.search({ text: 'generously', limit: 5 })).map((h) => h.id),
    ['b'],
  )
  assert.equal(
    (await plain.search({ text: 'generators', limit: 5 })).map((h) => h.id),
    ['b'],
  )
  assert.equal(await english.search({ text: 'generators', limit: 5, type: 'decision' }), [])
})

test('a snapshot names its analysis: an index of the other is not read back', async () => {
  const store = memorySnapshotStore()
  const plain = bm25Retriever()
  plain.attach!(store)
  await plain.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  await plain.flush!(true)
  const again = bm25Retriever()
  again.attach!(store)
  assert.is(await again.revision(), '1')
  const english = bm25Retriever({ analysis: 'english' })
  english.attach!(store)
  assert.is(await english.revision(), undefined, 'the kernel indexes again')
  await english.apply({ revision: '2', reset: true, upsert: docs, remove: [] })
  const reopened = bm25Retriever({ analysis: 'english' })
  reopened.attach!(store)
  assert.is(await reopened.revision(), '2')
  assert.equal(
    (await reopened.search({ text: 'retried', limit: 5 })).map((h) => h.id),
    ['a'],
  )
})

const ranked: RetrievalDoc[] = [
  { id: 'a', title: 'Deploy', body: 'Deploy the build.', tags: ['ops'], type: 'domain', scope: 'project' },
  { id: 'b', title: 'Build', body: 'Tests run.', tags: [], type: 'domain', scope: 'project' },
]

test("ranking 'postgres': one BM25 of field-weighted term frequencies, lengths in terms (the Postgres retriever's formula)", async () => {
  const r = bm25Retriever({ analysis: 'english', ranking: 'postgres' })
  await r.apply({ revision: '1', reset: true, upsert: ranked, remove: [] })
  // a: deploy (title, body), ops (tags), build: 4 terms; b: build (title), test, run: 3. Average 3.5.
  const bm25 = (idf: number, tf: number, length: number) =>
    (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * length) / 3.5))
  const close = (hits: Array<{ id: string; score: number }>, expected: Array<[string, number]>) => {
    assert.equal(
      hits.map((h) => h.id),
      expected.map(([id]) => id),
    )
    hits.forEach((h, i) =>
      assert.ok(Math.abs(h.score - expected[i]![1]) < 1e-12, `${h.id}: ${h.score} vs ${expected[i]![1]}`),
    )
  }
  // A title occurrence counts twice: tf 1 + 1 + 1 (title) = 3.
  close(await r.search({ text: 'deploy', limit: 5 }), [['a', bm25(Math.log(2), 3, 4)]])
  // A tag occurrence counts 1.5 times.
  close(await r.search({ text: 'ops', limit: 5 }), [['a', bm25(Math.log(2), 1.5, 4)]])
  close(await r.search({ text: 'builds', limit: 5 }), [
    ['b', bm25(Math.log(1.2), 2, 3)],
    ['a', bm25(Math.log(1.2), 1, 4)],
  ])
  // Each query term once, as PostgreSQL's tsvector of the query holds it once.
  close(await r.search({ text: 'deploy deploys deploying', limit: 5 }), [['a', bm25(Math.log(2), 3, 4)]])
  const minisearch = bm25Retriever({ analysis: 'english' })
  await minisearch.apply({ revision: '1', reset: true, upsert: ranked, remove: [] })
  const [once] = await minisearch.search({ text: 'deploy', limit: 5 })
  const [thrice] = await minisearch.search({ text: 'deploy deploys deploying', limit: 5 })
  assert.ok(thrice!.score > 2.9 * once!.score, 'ranked minisearch, a repeated query term counts each time')
})

test('a snapshot names its ranking: an index ranked otherwise is not read back, one ranked alike scores alike', async () => {
  const store = memorySnapshotStore()
  const postgres = bm25Retriever({ analysis: 'english', ranking: 'postgres' })
  postgres.attach!(store)
  await postgres.apply({ revision: '1', reset: true, upsert: ranked, remove: [] })
  await postgres.flush!(true)
  const minisearch = bm25Retriever({ analysis: 'english' })
  minisearch.attach!(store)
  assert.is(await minisearch.revision(), undefined, 'lengths in distinct words are not lengths in terms: indexed again')
  const again = bm25Retriever({ analysis: 'english', ranking: 'postgres' })
  again.attach!(store)
  assert.is(await again.revision(), '1')
  assert.equal(
    await again.search({ text: 'build deploy', limit: 5 }),
    await postgres.search({ text: 'build deploy', limit: 5 }),
  )
})

test.run()
