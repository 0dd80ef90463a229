import { bm25Retriever, createKernel, memoryStorage, relevanceUnit, type Retriever } from '@foundry/kernel'
import type { RetrievalDoc } from '@foundry/kernel/adapter'
import { calibrateScoreScale, distractors } from '@foundry/kernel/testing'
import Database from 'better-sqlite3'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ftsRetriever, sqliteStorage } from '../src/index.js'
import { boundedDistance, matchExpression, queryTerms } from '../src/fts-query.js'
import { runChild } from './child.js'
import { tempDb } from './helpers.js'

const doc = (id: string, title: string, body = '', extra: Partial<RetrievalDoc> = {}): RetrievalDoc => ({
  id,
  title,
  body,
  tags: [],
  type: 'decision',
  scope: 'project',
  ...extra,
})

async function indexed(docs: RetrievalDoc[], path = tempDb('fts.db')): Promise<Retriever> {
  const retriever = ftsRetriever({ path })
  await retriever.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  return retriever
}

test('query text is quoted term by term: FTS5 syntax in a query is inert', () => {
  assert.equal(queryTerms('"foo" AND (bar OR NEAR( the'), ['foo', 'bar', 'near'])
  assert.is(matchExpression(['foo', 'kubernet'], 4), '"foo" OR "kubernet" OR "kubernet"*')
})

test('text written without spaces is split into words, each quoted: FTS5 syntax around them is inert', () => {
  assert.equal(queryTerms('注文の決済"OR 配送*'), ['注文', 'の', '決済', '配送'])
  assert.is(
    matchExpression(queryTerms('注文の決済"OR 配送*'), 4),
    '"注文" OR "注文" OR "の" OR "の" OR "決済" OR "決済" OR "配送" OR "配送"',
    'each word twice: it counts as a long word does',
  )
  assert.is(matchExpression(['決済', 'api'], 0), '"決済" OR "api"', 'without prefix matching every word counts once')
  assert.equal(queryTerms('数据库迁移(NEAR'), ['数据', '库', '迁移', 'near'])
  assert.equal(queryTerms('การชำระเงิน'), ['การ', 'ชำระ', 'เงิน'])
  assert.equal(queryTerms('ง่าย'), ['ง่าย'], 'a Thai word keeps its tone mark: one quoted phrase, not two pieces')
  assert.equal(queryTerms('Stripe の決済 webhook'), ['stripe', 'の', '決済', 'webhook'])
})

test('boundedDistance is Levenshtein distance, capped at max + 1', () => {
  const levenshtein = (a: string, b: string) => {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j)
    for (let i = 1; i <= a.length; i++) {
      const next = [i]
      for (let j = 1; j <= b.length; j++)
        next.push(Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)))
      row = next
    }
    return row[b.length]!
  }
  let seed = 7
  const rand = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n
  const word = () => Array.from({ length: rand(12) }, () => 'abcd'[rand(4)]).join('')
  for (let i = 0; i < 3000; i++) {
    const [a, b, max] = [word(), word(), rand(4)]
    assert.is(boundedDistance(a, b, max), Math.min(levenshtein(a, b), max + 1), `${a} ${b} ${max}`)
  }
})

test('a query full of FTS5 syntax never throws', async () => {
  const r = await indexed([
    ...distractors(),
    doc('fact-0001', 'NEAR and AND are words here', 'Column title: body "quoted" * star'),
  ])
  const nasty = [
    '"foo" AND (bar OR NEAR(',
    'NEAR(a b, 3)',
    'title:redis',
    '{title tags}: redis',
    '- redis',
    '^redis',
    'redis*',
    '* * *',
    '"',
    '""""',
    "'single' quotes",
    'AND OR NOT',
    'a OR',
    '(((',
    ')))',
    'x:y:z',
    '\\"escaped\\"',
    '\u0000 nul',
    'emoji 🚀 and ünïcödé',
    '+ - / \\ ; , . ! ? @ # $ % ^ & = ~ ` | < > [ ]',
    'redis'.repeat(400),
  ]
  // And random strings over FTS5's syntax characters, from a fixed seed.
  let seed = 42
  const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
  const alphabet = [
    '"',
    '(',
    ')',
    '*',
    ':',
    '^',
    '+',
    '-',
    '{',
    '}',
    ',',
    ' ',
    'NEAR',
    'AND',
    'OR',
    'NOT',
    'redis',
    'title',
    'a',
  ]
  for (let i = 0; i < 300; i++)
    nasty.push(
      Array.from({ length: 1 + Math.floor(rand() * 12) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join(
        '',
      ),
    )
  for (const text of nasty) {
    const hits = await r.search({ text, limit: 5 })
    assert.ok(Array.isArray(hits), text)
  }
  assert.is(
    (await r.search({ text: '"foo" AND (near OR NEAR(', limit: 1 }))[0]?.id,
    'fact-0001',
    'the words in it still match',
  )
  await r.close?.()
})

test('Japanese, Chinese and Thai facts are found by one word, whatever FTS5 syntax surrounds it', async () => {
  const r = await indexed([
    ...distractors(),
    doc('fact-0001', '注文は決済後に確定する', '「在庫」は毎晩、同期される。'),
    doc('fact-0002', '数据库迁移必须先在预发布环境验证'),
    doc('fact-0003', 'ใบแจ้งหนี้ส่งทางอีเมลทุกเดือน', '', { tags: ['ภาษีง่าย'] }),
  ])
  const found = async (text: string) => (await r.search({ text, limit: 5 })).map((h) => h.id)
  for (const text of ['決済', '"決済"', '決済*', '決済 OR', 'NEAR(決済', '「決済」', '決済:', '^決済', '在庫', '同期'])
    assert.equal(await found(text), ['fact-0001'], text)
  for (const text of ['迁移', '迁移 AND', '(迁移)']) assert.equal(await found(text), ['fact-0002'], text)
  for (const text of ['อีเมล', 'ใบแจ้งหนี้', 'ง่าย']) assert.equal(await found(text), ['fact-0003'], text)
  for (const text of ['配送', '"物流"', 'สินค้า', '"']) assert.equal(await found(text), [], text)
  await r.close?.()
})

test('a word written without spaces has the relevance the bm25 retriever gives it, so the relevance floor treats it alike', async () => {
  for (const retriever of [ftsRetriever({ path: tempDb('fts.db') }), bm25Retriever()]) {
    const kernel = createKernel({ storage: memoryStorage(), retriever })
    for (const [i, d] of distractors(30).entries())
      await kernel.memory.write({
        title: d.title,
        body: `${d.body} Entry ${i}.`,
        type: 'convention',
        scope: `module:m${i}`,
      })
    await kernel.memory.write({
      title: 'Orders are final once paid',
      body: '注文は決済後に確定する。',
      type: 'constraint',
    })
    const [hit] = (await kernel.memory.search({ query: '決済' })).hits
    assert.is(hit?.fact.id, 'fact-0031', retriever.name)
    assert.ok(
      hit!.relevance > 0.7 && hit!.relevance < 1.3,
      `${retriever.name}: one body word ≈ 1 (got ${hit!.relevance.toFixed(2)})`,
    )
    await kernel.close()
  }
})

test('an index cut before text without spaces was split reflects no revision: the kernel rebuilds it', async () => {
  const path = tempDb()
  const database = new Database(path)
  const kernel = createKernel({ storage: sqliteStorage({ database }), retriever: ftsRetriever({ database }) })
  await kernel.memory.write({
    title: '注文は決済後に確定する',
    body: 'Orders are final once paid.',
    type: 'constraint',
  })
  assert.is((await kernel.memory.search({ query: '決済' })).hits.length, 1)
  await kernel.close()
  // What an index written before this analyzer holds: the whole run as one term, no analyzer recorded.
  database.prepare(`DELETE FROM fts_state WHERE key = 'analyzer'`).run()
  database
    .prepare(
      `INSERT OR REPLACE INTO fts_index (rowid, title, tags, body) SELECT rowid, '注文は決済後に確定する', '', 'Orders are final once paid.' FROM fts_docs WHERE id = 'fact-0001'`,
    )
    .run()
  const stale = ftsRetriever({ database })
  assert.is((await stale.search({ text: '決済', limit: 5 })).length, 0, 'the old terms miss the word')
  await stale.close?.()
  const [storage, retriever] = [sqliteStorage({ database }), ftsRetriever({ database })]
  assert.is(await retriever.revision(), undefined, 'not the analyzer it was cut with')
  const again = createKernel({ storage, retriever })
  assert.equal(
    (await again.memory.search({ query: '決済' })).hits.map((h) => h.fact.id),
    ['fact-0001'],
    'rebuilt, then found',
  )
  assert.is(await retriever.revision(), await storage.revision('facts'))
  await again.close()
  database.close()
})

test('stop words and punctuation alone match nothing', async () => {
  const r = await indexed([doc('fact-0001', 'The cache is the source of truth for sessions')])
  assert.equal(await r.search({ text: 'the AND of OR is', limit: 5 }), [])
  assert.equal(await r.search({ text: '!!! ??? ...', limit: 5 }), [])
  await r.close?.()
})

test('the revision and the index survive into a new process, without re-indexing', async () => {
  const path = tempDb('fts.db')
  const r = await indexed([...distractors(), doc('fact-0001', 'Deployments require two approvals')], path)
  await r.apply({ revision: '2.abc', upsert: [doc('fact-0002', 'Rollbacks are automated')], remove: [] })
  await r.close?.()
  const out = JSON.parse(await runChild('fts-open', [path, 'approval deploying'])) as {
    revision: string
    hits: Array<{ id: string }>
  }
  assert.is(out.revision, '2.abc')
  assert.is(out.hits[0]?.id, 'fact-0001')
})

test('a typo is found only when the word itself is unknown; fuzzy 0 turns it off', async () => {
  const docs = [
    ...distractors(),
    doc('fact-0001', 'Kubernetes manifests live in the infra repository'),
    doc('fact-0002', 'Kubernetse is a typo'),
  ]
  const r = await indexed(docs)
  assert.equal(
    (await r.search({ text: 'kubernetse', limit: 5 })).map((h) => h.id),
    ['fact-0002'],
    'a known word is never replaced by its neighbours',
  )
  assert.equal(
    (await r.search({ text: 'kubrenetes', limit: 5 })).map((h) => h.id),
    ['fact-0001'],
    'a transposition',
  )
  await r.apply({ revision: '2', upsert: [doc('fact-0003', 'Terraform modules are versioned')], remove: [] })
  assert.equal(
    (await r.search({ text: 'terrafrom', limit: 5 })).map((h) => h.id),
    ['fact-0003'],
    'a word added incrementally is a typo candidate too',
  )
  const strict = ftsRetriever({ path: tempDb('fts.db'), fuzzy: 0 })
  await strict.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  assert.equal(await strict.search({ text: 'kubrenetes', limit: 5 }), [])
  await r.close?.()
  await strict.close?.()
})

test('MaxScore pruning returns the hits and scores of one bm25() query over all words', async () => {
  // Rare words (one fact each) beside common ones (every fact, or every third): the common words'
  // bound lets pruning stop, so its two-query path really runs; filters and typos go through it too.
  const docs = Array.from({ length: 600 }, (_, i) =>
    doc(
      `fact-${String(i + 1).padStart(4, '0')}`,
      `Service ${i % 3 ? 'cache' : 'queue'} note ${i}`,
      `word${i} entry${i % 50} handles requests ${i % 7 ? 'slowly' : 'quickly'}`,
      {
        type: i % 2 ? 'decision' : 'convention',
        tags: i % 5 ? [] : ['hotpath'],
      },
    ),
  )
  const path = tempDb('fts.db')
  const pruned = ftsRetriever({ path, pruneMinRows: 0 })
  await pruned.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  const plain = ftsRetriever({ path, pruneMinRows: Infinity })
  const queries = [
    'word17 service requests',
    'entry3 cache quickly',
    'word5 word6 handles',
    'hotpath queue note',
    'service requests',
    'entry12 wrod12 cache',
    'quickly',
  ]
  let differ = 0
  for (const text of queries)
    for (const extra of [{}, { type: 'decision' as const }, { scope: 'project' }]) {
      for (const limit of [1, 5, 20]) {
        const [a, b] = [await pruned.search({ text, limit, ...extra }), await plain.search({ text, limit, ...extra })]
        assert.equal(
          a.map((h) => h.id),
          b.map((h) => h.id),
          `${text} ${JSON.stringify(extra)} ${limit}`,
        )
        a.forEach((h, i) =>
          assert.ok(Math.abs(h.score - b[i]!.score) < 1e-9, `${text}: score ${h.score} vs ${b[i]!.score}`),
        )
        if (a.length && b.length && a[0]!.id !== (await pruned.search({ text: text.split(' ')[0]!, limit: 1 }))[0]?.id)
          differ++
      }
    }
  assert.ok(differ > 0, 'the common words change the ranking somewhere: their scores are really added')
  await pruned.close?.()
  await plain.close?.()
})

test('tags are searchable and weigh more than the body', async () => {
  const r = await indexed([
    ...distractors(),
    doc('fact-0001', 'Queue consumers', 'They retry with backoff.', { tags: ['reentrancy'] }),
    doc('fact-0002', 'Payment calls', 'Every call is checked for reentrancy by the gateway.'),
  ])
  assert.equal(
    (await r.search({ text: 'reentrancy', limit: 5 })).map((h) => h.id),
    ['fact-0001', 'fact-0002'],
  )
  await r.close?.()
})

test('beside sqliteStorage on one database: the kernel writes, searches, and a new kernel resumes without re-indexing', async () => {
  const path = tempDb()
  const open = () => {
    const database = new Database(path)
    const [storage, retriever] = [sqliteStorage({ database }), ftsRetriever({ database })]
    return { database, storage, retriever, kernel: createKernel({ storage, retriever }) }
  }
  const first = open()
  for (const [i, d] of distractors(30).entries())
    await first.kernel.memory.write({
      title: d.title,
      body: `${d.body} Entry ${i}.`,
      type: 'convention',
      scope: `module:m${i}`,
    })
  await first.kernel.memory.write({
    title: 'Deployments require two approvals',
    body: 'Production releases need two reviewers.',
    type: 'constraint',
  })
  const found = await first.kernel.memory.search({ query: 'deploying approval' })
  assert.is(found.hits[0]?.fact.title, 'Deployments require two approvals')
  await first.kernel.close()
  first.database.close()

  const second = open()
  const revision = await second.storage.revision('facts')
  assert.is(await second.retriever.revision(), revision, 'the index on disk reflects the latest write')
  assert.equal(
    (await second.kernel.memory.search({ query: 'deploying approval' })).hits.map((h) => h.fact.id),
    found.hits.map((h) => h.fact.id),
  )
  await second.kernel.close()
  second.database.close()
})

test('scoreScale is the calibrated figure: 2 with prefix matching (each word matched twice), 1 without', async () => {
  for (const [options, declared] of [
    [{}, 2],
    [{ prefixMinLength: 0 }, 1],
  ] as const) {
    const retriever = ftsRetriever({ path: ':memory:', ...options })
    assert.is(retriever.scoreScale, declared)
    const measured = await calibrateScoreScale(retriever)
    assert.ok(
      Math.abs(measured / declared - 1) < 0.01,
      `${JSON.stringify(options)}: measured ${measured}, declared ${declared}`,
    )
    await retriever.close?.()
  }
})

test('capabilities follow the options', async () => {
  for (const [options, declared] of [
    [{}, { stemming: true, prefix: true, fuzzy: true, segmentation: true }],
    [
      { prefixMinLength: 0, fuzzy: 0 },
      { stemming: true, prefix: false, fuzzy: false, segmentation: true },
    ],
  ] as const) {
    const retriever = ftsRetriever({ path: ':memory:', ...options })
    assert.equal(retriever.capabilities, declared, JSON.stringify(options))
    await retriever.close?.()
  }
})

test('the kernel reports relevance as score / (IDF unit × scoreScale)', async () => {
  const retriever = ftsRetriever({ path: tempDb('fts.db') })
  const kernel = createKernel({ storage: memoryStorage(), retriever })
  for (const [i, d] of distractors(20).entries())
    await kernel.memory.write({
      title: d.title,
      body: `${d.body} Entry ${i}.`,
      type: 'convention',
      scope: `module:m${i}`,
    })
  await kernel.memory.write({
    title: 'Deployments require two approvals',
    body: 'Production releases need two reviewers.',
    type: 'constraint',
  })
  const [hit] = (await kernel.memory.search({ query: 'deployments approvals reviewers' })).hits
  assert.ok(hit, 'found')
  assert.ok(
    Math.abs(hit.relevance - hit.score / relevanceUnit(21, 2)) < 1e-9,
    `relevance ${hit.relevance}, score ${hit.score}`,
  )
  await kernel.close()
})

test('bm25 on sqliteStorage: its snapshot lives in the file and a new process restores it', async () => {
  const path = tempDb()
  const kernel = createKernel({ storage: sqliteStorage({ path }), retriever: bm25Retriever() })
  await kernel.memory.write({
    title: 'Sessions expire after thirty minutes idle',
    body: 'Set by the gateway.',
    type: 'constraint',
  })
  await kernel.memory.search({ query: 'session' })
  await kernel.close()
  const [storage, retriever] = [sqliteStorage({ path }), bm25Retriever()]
  const again = createKernel({ storage, retriever })
  assert.is(await retriever.revision(), await storage.revision('facts'), 'restored from the snapshot in meta')
  assert.is((await again.memory.search({ query: 'sessions idle' })).hits.length, 1)
  await again.close()
})

test.run()
