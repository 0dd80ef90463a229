import { join } from 'node:path'
import { postgresRetriever } from '@foundry/adapter-postgres'
import { createDatabase, startTestDatabase } from '@foundry/adapter-postgres/testing'
import { ftsRetriever } from '@foundry/adapter-sqlite'
import type { Retriever } from '@foundry/kernel'
import { minisearchRetriever } from '@foundry/retriever-minisearch'
import type { RetrievalDoc } from '@foundry/kernel/adapter'
import type { BenchContext, Suite } from '../lib/context.js'
import { factDocs } from '../lib/corpus.js'
import { ms, sample } from '../lib/measure.js'
import { scifactQuality } from './scifact.js'

const SUITE = 'postgres-retrieval'

/** Index build, search and one-fact update latency of one retriever over `docs`, queried with `queries`. */
async function latencies(
  retriever: Retriever,
  docs: RetrievalDoc[],
  extra: RetrievalDoc[],
  queries: string[],
  n: number,
) {
  let t = performance.now()
  await retriever.apply({ revision: '0', reset: true, upsert: docs, remove: [] })
  const build = performance.now() - t
  const search = await sample(n, (i) => retriever.search({ text: queries[Math.abs(i) % queries.length]!, limit: 20 }))
  t = performance.now()
  const update = await sample(n, (i) =>
    retriever.apply({ revision: String(i + 10), upsert: [extra[Math.abs(i) % extra.length]!], remove: [] }),
  )
  return { build, search, update, total: performance.now() - t }
}

/**
 * The PostgreSQL retriever (issue 16) beside the built-in ones, in the same run, on a real embedded
 * PostgreSQL server (FOUNDRY_TEST_DATABASE_URL points it at another): SciFact nDCG@10 and recall@100
 * against MiniSearch and FTS5, and search and one-fact update latency at 10k facts against MiniSearch.
 */
export const postgresRetrievalSuite: Suite = {
  name: SUITE,
  about:
    'postgresRetriever (issue 16): SciFact nDCG@10 beside MiniSearch and FTS5; search/update p50/p99 at 10k facts beside MiniSearch',
  async run(ctx) {
    const server = await startTestDatabase({ log: () => undefined })
    const open = async () => postgresRetriever({ url: await createDatabase(server.url) })
    try {
      const pgRetriever = await open()
      const [pgQ, mini, fts] = [
        await scifactQuality(ctx, pgRetriever),
        await scifactQuality(ctx, minisearchRetriever()),
        await scifactQuality(ctx, ftsRetriever({ path: join(ctx.scratch, 'postgres-suite-scifact-fts.db') })),
      ]
      await pgRetriever.close?.()
      ctx.report({
        suite: SUITE,
        figure: `postgresRetriever SciFact nDCG@10 (${pgQ.queries} queries)`,
        value: pgQ.ndcg10.toFixed(3),
        baseline: `minisearchRetriever ${mini.ndcg10.toFixed(3)}; ftsRetriever ${fts.ndcg10.toFixed(3)}`,
        ratio: pgQ.ndcg10 / mini.ndcg10,
        target: '≥ MiniSearch − 0.02',
        met: pgQ.ndcg10 >= mini.ndcg10 - 0.02,
      })
      ctx.report({
        suite: SUITE,
        figure: 'postgresRetriever SciFact recall@100',
        value: pgQ.recall100.toFixed(3),
        baseline: `minisearchRetriever ${mini.recall100.toFixed(3)}; ftsRetriever ${fts.recall100.toFixed(3)}`,
        ratio: pgQ.recall100 / mini.recall100,
      })

      const size = ctx.quick ? 1000 : 10_000
      const n = ctx.quick ? 30 : 200
      const all = factDocs(ctx, size + n)
      const [docs, extra] = [all.slice(0, size), all.slice(size)]
      // Queries as a user types them: the first four words of a fact's title (facts not in the index, so some words are new).
      const queries = extra.map((d) => d.title.split(' ').slice(0, 4).join(' '))
      const label = `@${size / 1000}k facts`
      const url = await createDatabase(server.url)
      const postgres = postgresRetriever({ url })
      const pgL = await latencies(postgres, docs, extra, queries, n)
      await postgres.close?.()
      // The same index, every match scored (no MaxScore pruning): what the pruning saves.
      const unpruned = postgresRetriever({ url, pruning: false })
      const full = await sample(n, (i) => unpruned.search({ text: queries[Math.abs(i) % queries.length]!, limit: 20 }))
      await unpruned.close?.()
      const miniL = await latencies(minisearchRetriever(), docs, extra, queries, n)
      ctx.report({
        suite: SUITE,
        figure: `postgresRetriever ${label}: search p50 / p99 (limit 20)`,
        value: `${ms(pgL.search.p50)} / ${ms(pgL.search.p99)} ms`,
        baseline: `minisearchRetriever ${ms(miniL.search.p50)} / ${ms(miniL.search.p99)} ms`,
        ratio: pgL.search.p50 / miniL.search.p50,
      })
      ctx.report({
        suite: SUITE,
        figure: `postgresRetriever ${label}: search p50 / p99 without MaxScore pruning (pruning: false)`,
        value: `${ms(full.p50)} / ${ms(full.p99)} ms`,
        baseline: `with pruning ${ms(pgL.search.p50)} / ${ms(pgL.search.p99)} ms`,
        ratio: full.p50 / pgL.search.p50,
      })
      ctx.report({
        suite: SUITE,
        figure: `postgresRetriever ${label}: one-fact apply p50 / p99`,
        value: `${ms(pgL.update.p50)} / ${ms(pgL.update.p99)} ms`,
        baseline: `minisearchRetriever ${ms(miniL.update.p50)} / ${ms(miniL.update.p99)} ms`,
        ratio: pgL.update.p50 / miniL.update.p50,
      })
      ctx.report({
        suite: SUITE,
        figure: `postgresRetriever ${label}: index build (one reset apply)`,
        value: `${ms(pgL.build)} ms`,
        baseline: `minisearchRetriever ${ms(miniL.build)} ms`,
        ratio: pgL.build / miniL.build,
      })
    } finally {
      await server.stop()
    }
  },
}
