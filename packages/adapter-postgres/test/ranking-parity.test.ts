import { readFileSync } from 'node:fs'
import { bm25Retriever, type Retriever } from '@foundry/kernel'
import type { RetrievalDoc, RetrievalHit } from '@foundry/kernel/adapter'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { postgresRetriever } from '../src/retriever.js'
import { useServer } from './helpers.js'

const server = useServer(test)

/** Two dozen facts of plain English: stems, stop words, hyphenated words, titles and tags sharing words with bodies. */
const docs: RetrievalDoc[] = (
  JSON.parse(readFileSync(new URL('./fixtures/ranking-docs.json', import.meta.url), 'utf8')) as Array<
    Omit<RetrievalDoc, 'type' | 'scope'>
  >
).map((d, i) => ({ ...d, type: i % 3 ? 'domain' : 'decision', scope: 'project' }))

/** Queries: words the index holds, and words it lacks (prefixes, typos) that both widen alike. */
const QUERIES = [
  'deploy',
  'cache invalidation on deploy',
  'retrying payments',
  'database migrations backward compatible',
  'search index logging',
  'state-of-the-art IL-6',
  'tokens expire refresh revoked',
  'retry retry retries worker queue',
  'billing never charges twice',
  'the on-call engineer restores a backup',
  'timeout http calls',
  'cache',
  'H2A.Z +1 nucleosomes pd-l1',
  'deplo migrat',
  'depoly retreis paymnet',
  'authent',
]

const near = (a: RetrievalHit[], b: RetrievalHit[], what: string) => {
  assert.equal(
    b.map((h) => h.id),
    a.map((h) => h.id),
    what,
  )
  a.forEach((h, i) =>
    assert.ok(Math.abs(h.score - b[i]!.score) < 1e-6, `${what}: ${h.id} ${h.score} vs ${b[i]!.score}`),
  )
}

async function bothIndexed(): Promise<[Retriever, Retriever]> {
  const postgres = postgresRetriever({ url: await server.fresh() })
  const inProcess = bm25Retriever({ analysis: 'english', ranking: 'postgres' })
  for (const r of [postgres, inProcess]) await r.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  return [postgres, inProcess]
}

test("bm25 ranked 'postgres' on the english analysis: the Postgres retriever's hits and scores, to rounding", async () => {
  const [postgres, inProcess] = await bothIndexed()
  try {
    for (const text of QUERIES) {
      near(await postgres.search({ text, limit: 10 }), await inProcess.search({ text, limit: 10 }), text)
      near(
        await postgres.search({ text, limit: 5, type: 'decision' }),
        await inProcess.search({ text, limit: 5, type: 'decision' }),
        `${text} (decisions)`,
      )
    }
    // After a change: document frequencies, the count and the average length move alike.
    const changes = {
      revision: '2',
      upsert: [{ ...docs[0]!, body: 'Deploy deploy deploy the cache.' }],
      remove: ['fact-0003', 'fact-0014'],
    }
    for (const r of [postgres, inProcess]) await r.apply(changes)
    for (const text of QUERIES)
      near(await postgres.search({ text, limit: 10 }), await inProcess.search({ text, limit: 10 }), `${text}, changed`)
  } finally {
    await postgres.close?.()
  }
})

test('the check has teeth: the MiniSearch ranking of the same terms scores otherwise', async () => {
  const postgres = postgresRetriever({ url: await server.fresh() })
  const minisearch = bm25Retriever({ analysis: 'english' })
  try {
    for (const r of [postgres, minisearch]) await r.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
    let differ = 0
    for (const text of QUERIES) {
      const [a, b] = [await postgres.search({ text, limit: 10 }), await minisearch.search({ text, limit: 10 })]
      if (a.some((h, i) => h.id !== b[i]?.id || Math.abs(h.score - b[i]!.score) >= 1e-6)) differ++
    }
    assert.is(differ, QUERIES.length)
  } finally {
    await postgres.close?.()
  }
})

test.run()
