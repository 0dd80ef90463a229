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

test.run()
