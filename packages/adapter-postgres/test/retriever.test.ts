import { createKernel, memoryStorage, type Retriever } from '@foundry/kernel'
import type { RetrievalDoc } from '@foundry/kernel/adapter'
import { calibrateScoreScale, distractors } from '@foundry/kernel/testing'
import pg from 'pg'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { postgresStorage } from '../src/postgres-storage.js'
import { postgresRetriever, type PostgresRetrieverOptions } from '../src/retriever.js'
import { anyOf, likePrefix, quoteLexeme, typoPatterns } from '../src/retriever-query.js'
import { postgresRetrieverDescriptor } from '../src/retriever-descriptor.js'
import { failure, useServer } from './helpers.js'

const server = useServer(test)
const doc = (id: string, title: string, body = '', extra: Partial<RetrievalDoc> = {}): RetrievalDoc => ({
  id,
  title,
  body,
  tags: [],
  type: 'decision',
  scope: 'project',
  ...extra,
})
const ids = (hits: Array<{ id: string }>) => hits.map((h) => h.id)

/** A retriever over a fresh database, holding `docs`. */
async function indexed(
  docs: RetrievalDoc[],
  options: Partial<PostgresRetrieverOptions> = {},
): Promise<Retriever & { url: string }> {
  const url = await server.fresh()
  const retriever = postgresRetriever({ url, ...options })
  await retriever.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  return Object.assign(retriever, { url })
}

async function sql<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<R>(text, values)).rows
  } finally {
    await client.end()
  }
}

test('lexemes are quoted for tsquery: quotes and backslashes are literal', () => {
  assert.is(quoteLexeme("it's"), "'it''s'")
  assert.is(quoteLexeme('a\\b'), "'a\\\\b'")
  assert.is(anyOf(['deploy', "o'neil"]), "'deploy' | 'o''neil'")
  assert.is(likePrefix('50%_a\\'), '50\\%\\_a\\\\%')
  assert.equal(typoPatterns('kubrenet', 2), ['%ku%', '%bre%', '%net%'], 'one piece per edit allowed, and one more')
  assert.equal(typoPatterns('a%b', 1), ['%a%', '%\\%b%'])
})

test('a query full of tsquery and websearch syntax never throws, and its words still match', async () => {
  const r = await indexed([
    ...distractors(),
    doc(
      'fact-0001',
      'Quotes: it\'s "quoted" and a\\b back\\slash',
      'Operators | & ! <-> :* (grouped) or not -excluded',
    ),
  ])
  const nasty = [
    "'",
    "''",
    '"',
    '"unbalanced',
    '(((',
    ')))',
    'a | b',
    'a & !b',
    '!!!',
    'redis:*',
    ':*',
    'a <-> b',
    'a <2> b',
    '-redis',
    'or or or',
    'and',
    "o'neil",
    '\\',
    "\\\\'",
    'x:AB',
    '\u0000 nul',
    'emoji 🚀 and ünïcödé',
    '+ - / \\ ; , . ! ? @ # $ % ^ & = ~ ` | < > [ ] { }',
    'redis'.repeat(500),
    'word '.repeat(2000),
  ]
  let seed = 42
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
  const alphabet = [
    "'",
    '"',
    '(',
    ')',
    '|',
    '&',
    '!',
    ':*',
    ':',
    '<->',
    '-',
    '\\',
    ' ',
    'or',
    'OR',
    'and',
    'redis',
    'quoted',
    'a',
  ]
  for (let i = 0; i < 200; i++)
    nasty.push(
      Array.from({ length: 1 + Math.floor(rand() * 12) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join(
        '',
      ),
    )
  for (const text of nasty) assert.ok(Array.isArray(await r.search({ text, limit: 5 })), text)
  for (const text of ['"quoted" | (grouped', "it's quoted", 'back\\slash', '!excluded:*', 'grouped)'])
    assert.is((await r.search({ text, limit: 1 }))[0]?.id, 'fact-0001', text)
  await r.close?.()
})

test('NUL in a document is indexed as a space, never a failed write', async () => {
  const r = await indexed([doc('fact-0001', 'Null\u0000byte title', 'body\u0000text')])
  assert.equal(ids(await r.search({ text: 'byte', limit: 5 })), ['fact-0001'])
  assert.equal(ids(await r.search({ text: 'body\u0000text', limit: 5 })), ['fact-0001'])
  await r.close?.()
})

test('scoreScale is the measured one: BM25 with Lucene IDF, 1', async () => {
  const url = await server.fresh()
  const r = postgresRetriever({ url })
  const measured = await calibrateScoreScale(r)
  assert.ok(Math.abs(measured - 1) < 0.01, `measured ${measured}`)
  assert.is(r.scoreScale, 1)
  await r.close?.()
})

test('a typo is found only when the word itself is unknown; a prefix only when the word is unknown; 0 turns each off', async () => {
  const docs = [
    ...distractors(),
    doc('fact-0001', 'Kubernetes manifests live in the infra repository'),
    doc('fact-0002', 'Kubernetse is a typo'),
    doc('fact-0003', 'Grafana dashboards'),
  ]
  const r = await indexed(docs)
  assert.equal(
    ids(await r.search({ text: 'kubernetse', limit: 5 })),
    ['fact-0002'],
    'a known word is never replaced by its neighbours',
  )
  assert.equal(ids(await r.search({ text: 'kubrenetes', limit: 5 })), ['fact-0001'], 'a transposition')
  assert.equal(ids(await r.search({ text: 'dashbo', limit: 5 })), ['fact-0003'], 'an unknown word as a prefix')
  await r.apply({ revision: '2', upsert: [doc('fact-0004', 'Terraform modules are versioned')], remove: [] })
  assert.equal(
    ids(await r.search({ text: 'terrafrom', limit: 5 })),
    ['fact-0004'],
    'a word added incrementally is a typo candidate too',
  )
  const strict = await indexed(docs, { fuzzy: 0, prefixMinLength: 0 })
  assert.equal(await strict.search({ text: 'kubrenetes', limit: 5 }), [])
  assert.equal(await strict.search({ text: 'dashbo', limit: 5 }), [])
  assert.equal(strict.capabilities, { stemming: true, prefix: false, fuzzy: false, segmentation: true })
  await r.close?.()
  await strict.close?.()
})

test('pruning (MaxScore) changes no hit and no score: it only skips documents that cannot enter', async () => {
  // Two common words (in 50% and 30% of the documents) and rare ones (each in 4): a query of both
  // kinds scores the documents holding a rare word first, and most often stops there.
  let seed = 11
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
  const docs = Array.from({ length: 1000 }, (_, i) =>
    doc(
      `fact-${String(i + 1).padStart(4, '0')}`,
      `${i % 2 ? 'gateway' : 'ledger'} note ${i % 10 < 3 ? 'throttle' : 'archive'}`,
      `zorbex${i % 250} ${rand() < 0.5 ? 'gateway gateway' : 'plain'} words`,
    ),
  )
  const pruned = await indexed(docs)
  const full = postgresRetriever({ url: pruned.url, pruning: false })
  for (let i = 0; i < 60; i++) {
    const text = `gateway throttle zorbex${(i * 7) % 250}${i % 3 ? ` zorbex${(i * 13) % 250}` : ''}`
    for (const limit of [1, 3, 10])
      assert.equal(await pruned.search({ text, limit }), await full.search({ text, limit }), `${text} (limit ${limit})`)
  }
  assert.equal(
    await pruned.search({ text: 'gateway throttle', limit: 5 }),
    await full.search({ text: 'gateway throttle', limit: 5 }),
    'common words only',
  )
  await pruned.close?.()
  await full.close?.()
})

test('tags are searchable and weigh more than the body', async () => {
  const r = await indexed([
    ...distractors(),
    doc('fact-0001', 'Queue consumers', 'They retry with backoff.', { tags: ['reentrancy'] }),
    doc('fact-0002', 'Payment calls', 'Every call is checked for reentrancy by the gateway.'),
  ])
  assert.equal(ids(await r.search({ text: 'reentrancy', limit: 5 })), ['fact-0001', 'fact-0002'])
  await r.close?.()
})

test('Japanese, Chinese and Thai facts are found by one word, whatever syntax surrounds it', async () => {
  const r = await indexed([
    ...distractors(),
    doc('fact-0001', '注文は決済後に確定する', '「在庫」は毎晩、同期される。'),
    doc('fact-0002', '数据库迁移必须先在预发布环境验证'),
    doc('fact-0003', 'ใบแจ้งหนี้ส่งทางอีเมลทุกเดือน', '', { tags: ['ภาษีง่าย'] }),
  ])
  const found = async (text: string) => ids(await r.search({ text, limit: 5 }))
  for (const text of ['決済', '"決済"', '決済:*', '決済 |', '!決済', '「決済」', "'決済'", '在庫', '同期'])
    assert.equal(await found(text), ['fact-0001'], text)
  for (const text of ['迁移', '迁移 &', '(迁移)']) assert.equal(await found(text), ['fact-0002'], text)
  for (const text of ['อีเมล', 'ใบแจ้งหนี้', 'ง่าย']) assert.equal(await found(text), ['fact-0003'], text)
  for (const text of ['配送', '"物流"', 'สินค้า', '"']) assert.equal(await found(text), [], text)
  await r.close?.()
})

test('document frequencies and totals stay exact through replacements, removals and concurrent appliers', async () => {
  const url = await server.fresh()
  const [a, b] = [postgresRetriever({ url }), postgresRetriever({ url })]
  await a.apply({ revision: '0', reset: true, upsert: distractors(40), remove: [] })
  const batch = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) =>
      doc(
        `fact-${String(from + i).padStart(4, '0')}`,
        `Service ${from + i} uses queue ${i % 7}`,
        `Retries ${i % 3} times.`,
      ),
    )
  await Promise.all([
    ...Array.from({ length: 10 }, (_, i) =>
      a.apply({ revision: `a${i}`, upsert: batch(i * 5, 8), remove: [`fact-${1000 + i}`] }),
    ),
    ...Array.from({ length: 10 }, (_, i) =>
      b.apply({
        revision: `b${i}`,
        upsert: batch(20 + i * 3, 6),
        remove: [`fact-${String(i * 4).padStart(4, '0')}`, `fact-${1020 + i}`],
      }),
    ),
  ])
  const [totals] = await sql<{ docs: string; length: string; counted: string; summed: string }>(
    url,
    'SELECT i.docs, i.length, (SELECT count(*) FROM foundry_retriever_docs) AS counted, (SELECT coalesce(sum(length), 0) FROM foundry_retriever_docs) AS summed FROM foundry_retriever_index i',
  )
  assert.is(totals!.docs, totals!.counted, 'document count')
  assert.is(totals!.length, totals!.summed, 'total length')
  const wrong = await sql(
    url,
    `SELECT * FROM (SELECT lexeme, count(*)::int AS n FROM foundry_retriever_docs, unnest(tsvector_to_array(tsv)) AS lexeme GROUP BY lexeme) AS actual
     FULL JOIN foundry_retriever_terms t USING (lexeme) WHERE actual.n IS DISTINCT FROM t.docs`,
  )
  assert.equal(wrong, [], 'every lexeme’s document frequency is its count, and no lexeme of no document is kept')
  await a.close?.()
  await b.close?.()
})

test('beside postgresStorage on one database; another text search configuration reflects no revision: the kernel rebuilds the index in it', async () => {
  const url = await server.fresh()
  let storage = await postgresStorage({ url })
  const english = postgresRetriever({ url })
  const kernel = createKernel({ storage, retriever: english })
  await kernel.memory.write({
    title: 'Deployments require two approvals',
    body: 'Production releases need two reviewers.',
    type: 'constraint',
  })
  assert.is(
    (await kernel.memory.search({ query: 'deploying approval' })).hits[0]?.fact.id,
    'fact-0001',
    'english stems',
  )
  assert.is(await english.revision(), await storage.revision('facts'))
  await kernel.close()
  const simple = postgresRetriever({ url, config: 'simple' })
  assert.is(await simple.revision(), undefined, 'not the analysis it was built with')
  storage = await postgresStorage({ url })
  const again = createKernel({ storage, retriever: simple })
  assert.equal(
    (await again.memory.search({ query: 'deployments' })).hits.map((h) => h.fact.id),
    ['fact-0001'],
    'rebuilt, then found',
  )
  assert.equal((await again.memory.search({ query: 'deploying' })).hits, [], 'simple does not stem')
  assert.is(await simple.revision(), await storage.revision('facts'))
  await again.close()
})

test('through the kernel: relevance is one per distinctive word, and type and scope filter', async () => {
  const kernel = createKernel({ storage: memoryStorage(), retriever: postgresRetriever({ url: await server.fresh() }) })
  for (const [i, d] of distractors(30).entries())
    await kernel.memory.write({
      title: d.title,
      body: `${d.body} Entry ${i}.`,
      type: 'convention',
      scope: `module:m${i}`,
    })
  await kernel.memory.write({
    title: 'Orders are final once paid',
    body: 'Settlement uses the ledgerbook. 注文は決済後に確定する。',
    type: 'constraint',
  })
  const [hit] = (await kernel.memory.search({ query: 'ledgerbook' })).hits
  assert.is(hit?.fact.title, 'Orders are final once paid')
  assert.ok(hit!.relevance > 0.7 && hit!.relevance < 1.3, `one body word ≈ 1 (got ${hit!.relevance.toFixed(2)})`)
  const [cjk] = (await kernel.memory.search({ query: '決済' })).hits
  assert.ok(cjk!.relevance > 0.7 && cjk!.relevance < 1.3, `one unspaced word ≈ 1 (got ${cjk!.relevance.toFixed(2)})`)
  assert.equal((await kernel.memory.search({ query: 'ledgerbook', type: 'convention' })).hits, [])
  await kernel.close()
})

test('an unknown text search configuration is one line naming it and the ones there are', async () => {
  const r = postgresRetriever({ url: await server.fresh(), config: 'klingon' })
  const error = await failure(() => r.search({ text: 'anything', limit: 5 }))
  assert.is(error.code, 'INVALID_INPUT')
  assert.match(
    error.message,
    /retrieval.config "klingon" is not a text search configuration of .*: use one of .*english.*simple/,
  )
  await r.close?.()
})

test('an unreachable server is UNAVAILABLE, and no message holds the password', async () => {
  const url = 'postgres://foundry:s3cret-pw@127.0.0.1:1/memory'
  const r = postgresRetriever({ url })
  const error = await failure(() => r.revision())
  assert.is(error.code, 'UNAVAILABLE')
  assert.ok(!error.message.includes('s3cret-pw'), error.message)
  assert.match(error.message, /127\.0\.0\.1:1/)
  await r.close?.()
  const closed = await failure(() => r.search({ text: 'x', limit: 1 }))
  assert.is(closed.code, 'UNAVAILABLE')
})

test('the descriptor opens in the storage’s database, else FOUNDRY_DATABASE_URL’s, else says what to set', async () => {
  const url = await server.fresh()
  const site = { root: '/project', dataDir: '/project/.foundry' }
  const r = await postgresRetrieverDescriptor.open(
    { prefixMinLength: 0 },
    { ...site, storage: { kind: 'postgres', options: { url } } },
  )
  await r.apply({ revision: '1', reset: true, upsert: [doc('fact-0001', 'Flyway migrations')], remove: [] })
  assert.equal(ids(await r.search({ text: 'flyway', limit: 1 })), ['fact-0001'])
  assert.is(r.capabilities?.prefix, false, 'options pass through')
  await r.close?.()
  const saved = process.env.FOUNDRY_DATABASE_URL
  try {
    delete process.env.FOUNDRY_DATABASE_URL
    const error = await failure(() =>
      postgresRetrieverDescriptor.open({}, { ...site, storage: { kind: 'fs', options: {} } }),
    )
    assert.is(error.code, 'INVALID_INPUT')
    assert.match(
      error.message,
      /retrieval "postgres" needs a database: use storage "postgres", or set FOUNDRY_DATABASE_URL=/,
    )
    process.env.FOUNDRY_DATABASE_URL = url
    const fromEnv = await postgresRetrieverDescriptor.open({}, { ...site, storage: { kind: 'fs', options: {} } })
    assert.is(await fromEnv.revision(), '1', 'the same database, through the environment')
    await fromEnv.close?.()
  } finally {
    if (saved === undefined) delete process.env.FOUNDRY_DATABASE_URL
    else process.env.FOUNDRY_DATABASE_URL = saved
  }
})

test.run()
