import { readFileSync } from 'node:fs'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { postgresRetriever, postgresStorage } from '@foundry/adapter-postgres'
import { createDatabase, startTestDatabase } from '@foundry/adapter-postgres/testing'
import { sqliteStorage } from '@foundry/adapter-sqlite'
import { bm25Retriever, createKernel, type Retriever, type Storage } from '@foundry/kernel'
import type { RetrievalDoc } from '@foundry/kernel/adapter'
import { requireData, type BenchContext, type Suite } from '../lib/context.js'
import { syntheticFacts } from '../lib/corpus.js'
import { latency, ms } from '../lib/measure.js'
import { seed, throughput } from './postgres.js'
import { scifactQuality } from './scifact.js'

const SUITE = 'postgres-scale'
const size = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n))

/**
 * LoCoMo recall@10: each conversation's turns as documents, its questions with evidence turns
 * (adversarial ones left out) as queries, the share of each question's evidence in its first 10 hits.
 */
export async function locomoRecall(ctx: BenchContext, open: () => Retriever | Promise<Retriever>): Promise<number> {
  const conversations = JSON.parse(readFileSync(requireData(ctx, 'locomo/locomo10.json'), 'utf8')) as Array<{
    conversation: Record<string, unknown>
    qa: Array<{ question: string; evidence?: string[]; category: number }>
  }>
  let [recall, questions] = [0, 0]
  for (const { conversation, qa } of conversations) {
    const docs: RetrievalDoc[] = Object.values(conversation)
      .filter((turns): turns is Array<{ dia_id: string; speaker: string; text: string }> => Array.isArray(turns))
      .flat()
      .map((t) => ({
        id: t.dia_id,
        title: '',
        body: `${t.speaker}: ${t.text}`,
        tags: [],
        type: 'domain',
        scope: 'project',
      }))
    const retriever = await open()
    await retriever.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
    for (const { question, evidence, category } of qa) {
      if (!evidence?.length || category === 5) continue
      const hits = new Set((await retriever.search({ text: question, limit: 10 })).map((h) => h.id))
      recall += evidence.filter((e) => hits.has(e)).length / evidence.length
      questions++
    }
    await retriever.close?.()
  }
  return recall / questions
}

/** A project's default retrieval on each storage (packages/project, config.ts): on PostgreSQL the Postgres retriever's ranking in process. */
const defaultRetrieval = (storage: string) =>
  storage === 'postgres' ? bm25Retriever({ analysis: 'english', ranking: 'postgres' }) : bm25Retriever()

/**
 * `memory_search` at `n` facts through a kernel with the default retrieval, on Postgres and on
 * SQLite, samples interleaved: each storage's first search (the index built from the facts), a new
 * kernel's first search (the snapshot read back from the storage), then p50/p99.
 */
async function searchAt(ctx: BenchContext, serverUrl: string, n: number): Promise<void> {
  const samples = ctx.quick ? 30 : 200
  const extra = syntheticFacts(ctx, n + samples).slice(n)
  const queries = extra.map((f) => f.title.split(' ').slice(0, 4).join(' '))
  const pgUrl = await createDatabase(serverUrl)
  const dir = join(ctx.scratch, `postgres-scale-sqlite-${size(n)}`)
  mkdirSync(dir, { recursive: true })
  await seed(ctx, { kind: 'postgres', at: pgUrl }, n)
  await seed(ctx, { kind: 'sqlite', at: dir }, n)
  const stores: Array<{ name: string; open: () => Promise<Storage> | Storage }> = [
    { name: 'postgres', open: () => postgresStorage({ url: pgUrl }) },
    { name: 'sqlite', open: () => sqliteStorage({ path: join(dir, 'foundry.db') }) },
  ]
  type Opened = (typeof stores)[0] & {
    kernel: ReturnType<typeof createKernel>
    build: number
    cold: number
    times: number[]
    again: number[]
  }
  const opened: Opened[] = []
  for (const store of stores) {
    const kernelOf = async () => createKernel({ storage: await store.open(), retriever: defaultRetrieval(store.name) })
    const built = await kernelOf()
    let t = performance.now()
    await built.memory.search({ query: 'warm up the index' })
    const build = performance.now() - t
    await built.close()
    const kernel = await kernelOf()
    t = performance.now()
    await kernel.memory.search({ query: queries[0]! })
    const cold = performance.now() - t
    opened.push({ ...store, kernel, build, cold, times: [], again: [] })
  }
  // Each query once, then the same queries again: a warm server asked what it was asked before
  // (its hits' facts read at this revision already).
  const pass = async (into: 'times' | 'again') => {
    for (let i = 0; i < samples; i++)
      for (let k = 0; k < opened.length; k++) {
        const o = opened[(i + k) % opened.length]!
        const t = performance.now()
        await o.kernel.memory.search({ query: queries[i]! })
        o[into].push(performance.now() - t)
      }
  }
  await pass('times')
  await pass('again')
  const [pg, sqlite] = opened as [Opened, Opened]
  for (const o of opened) await o.kernel.close()
  const [a, b] = [latency(pg.times), latency(sqlite.times)]
  ctx.report({
    suite: SUITE,
    figure: `memory_search @${size(n)}, each storage's default retrieval (postgres: bm25 english ranked postgres; sqlite: bm25): postgres storage p50 / p99`,
    value: `${ms(a.p50)} / ${ms(a.p99)} ms`,
    baseline: `sqlite storage ${ms(b.p50)} / ${ms(b.p99)} ms`,
    ratio: a.p50 / b.p50,
    target: '≤ 3×',
    met: a.p50 <= 3 * b.p50,
  })
  const [c, d] = [latency(pg.again), latency(sqlite.again)]
  ctx.report({
    suite: SUITE,
    figure: `memory_search @${size(n)}, default retrieval, the same queries again (warm process): postgres storage p50 / p99`,
    value: `${ms(c.p50)} / ${ms(c.p99)} ms`,
    baseline: `sqlite storage ${ms(d.p50)} / ${ms(d.p99)} ms`,
    ratio: c.p50 / d.p50,
    target: '≤ 3×',
    met: c.p50 <= 3 * d.p50,
  })
  ctx.report({
    suite: SUITE,
    figure: `@${size(n)}: first search building the index / a new kernel's first search (snapshot read back), postgres`,
    value: `${ms(pg.build)} / ${ms(pg.cold)} ms`,
    baseline: `sqlite ${ms(sqlite.build)} / ${ms(sqlite.cold)} ms`,
    ratio: pg.cold / sqlite.cold,
  })
}

/**
 * Team scale on PostgreSQL: search at 100k facts on a Postgres project with its default retrieval
 * against the same retrieval on SQLite; the default's quality against the Postgres retriever's
 * (SciFact nDCG@10, LoCoMo recall@10); write throughput of 1, 4 and 8 writer processes (fsync on).
 */
export const postgresScaleSuite: Suite = {
  name: SUITE,
  about:
    'postgres at team scale: default-retrieval search p50 at 100k vs SQLite, quality vs the postgres retriever, write throughput 1/4/8 processes',
  async run(ctx) {
    const server = await startTestDatabase({ fsync: true, log: () => undefined })
    try {
      // Throughput first: a store of 10k facts (1k quick), 1, 4 and 8 processes writing at once (see `throughput`).
      const n = ctx.quick ? 1000 : 10_000
      const seconds = ctx.quick ? 3 : 15
      const target = { kind: 'postgres' as const, at: await createDatabase(server.url) }
      await seed(ctx, target, n)
      const rates: number[] = []
      for (const [run, processes] of [1, 4, 8].entries()) rates.push(await throughput(target, processes, seconds, run))
      ctx.report({
        suite: SUITE,
        figure: `postgres @${size(n)}: memory_write throughput, 1 / 4 / 8 writer processes (steady state, ${seconds} s window, fsync on)`,
        value: `${rates.map((x) => x.toFixed(0)).join(' / ')} writes/s`,
        baseline: '1 process',
        ratio: rates[2]! / rates[0]!,
        target: '8 ≥ 1.5× 1',
        met: rates[2]! >= 1.5 * rates[0]!,
      })

      await searchAt(ctx, server.url, ctx.quick ? 1000 : 100_000)

      const open = async () => postgresRetriever({ url: await createDatabase(server.url) })
      const pgRetriever = await open()
      const [pgQ, bmQ] = [await scifactQuality(ctx, pgRetriever), await scifactQuality(ctx, bm25Retriever())]
      await pgRetriever.close?.()
      const [pgL, bmL] = [await locomoRecall(ctx, open), await locomoRecall(ctx, () => bm25Retriever())]
      ctx.report({
        suite: SUITE,
        figure: 'bm25 SciFact nDCG@10 / LoCoMo recall@10',
        value: `${bmQ.ndcg10.toFixed(3)} / ${bmL.toFixed(3)}`,
        baseline: `postgresRetriever ${pgQ.ndcg10.toFixed(3)} / ${pgL.toFixed(3)}`,
        ratio: bmL / pgL,
        target: 'not below',
        met: bmQ.ndcg10 >= pgQ.ndcg10 && bmL >= pgL,
      })
      const english = () => bm25Retriever({ analysis: 'english' })
      const [enQ, enL] = [await scifactQuality(ctx, english()), await locomoRecall(ctx, english)]
      ctx.report({
        suite: SUITE,
        figure: "bm25 with PostgreSQL's english analysis in process: SciFact nDCG@10 / LoCoMo recall@10",
        value: `${enQ.ndcg10.toFixed(3)} / ${enL.toFixed(3)}`,
        baseline: `postgresRetriever ${pgQ.ndcg10.toFixed(3)} / ${pgL.toFixed(3)}`,
        ratio: enL / pgL,
        target: 'not below',
        met: enQ.ndcg10 >= pgQ.ndcg10 && enL >= pgL,
      })
      const ranked = () => defaultRetrieval('postgres')
      const [rkQ, rkL] = [await scifactQuality(ctx, ranked()), await locomoRecall(ctx, ranked)]
      ctx.report({
        suite: SUITE,
        figure:
          "a Postgres project's default: bm25 with the english analysis ranked as the Postgres retriever (ranking 'postgres'): SciFact nDCG@10 / LoCoMo recall@10",
        value: `${rkQ.ndcg10.toFixed(4)} / ${rkL.toFixed(4)}`,
        baseline: `postgresRetriever ${pgQ.ndcg10.toFixed(4)} / ${pgL.toFixed(4)}`,
        ratio: rkQ.ndcg10 / pgQ.ndcg10,
        target: 'not below',
        met: rkQ.ndcg10 >= pgQ.ndcg10 && rkL >= pgL,
      })
    } finally {
      await server.stop()
    }
  },
}
