import { readFileSync } from 'node:fs'
import type { Retriever } from '@foundry/kernel'
import type { RetrievalDoc } from '@foundry/kernel/adapter'
import { minisearchRetriever } from '@foundry/retriever-minisearch'
import MiniSearch from 'minisearch'
import { readJsonl, scifactCorpus } from '../lib/corpus.js'
import { requireData, type BenchContext, type Suite } from '../lib/context.js'

interface Query {
  _id: string
  text: string
}

/** The SciFact test queries that have judgements (BEIR's qrels/test.tsv), each with its relevant documents' ids. */
export function scifactJudgements(ctx: BenchContext): Array<{ text: string; relevant: Set<string> }> {
  const queries = new Map(readJsonl<Query>(requireData(ctx, 'scifact/queries.jsonl')).map((q) => [q._id, q.text]))
  const qrels = new Map<string, Set<string>>()
  for (const line of readFileSync(requireData(ctx, 'scifact/qrels/test.tsv'), 'utf8').split('\n').slice(1)) {
    const [q, d, score] = line.split('\t')
    if (!q || !d || Number(score) <= 0) continue
    if (!qrels.has(q)) qrels.set(q, new Set())
    qrels.get(q)!.add(d)
  }
  return [...qrels].map(([qid, relevant]) => ({ text: queries.get(qid) ?? '', relevant }))
}

/** nDCG@10 of a ranking of document ids. */
export function ndcgAt10(ranked: string[], relevant: Set<string>): number {
  let dcg = 0
  ranked.slice(0, 10).forEach((id, i) => (dcg += relevant.has(id) ? 1 / Math.log2(i + 2) : 0))
  let idcg = 0
  for (let i = 0; i < Math.min(10, relevant.size); i++) idcg += 1 / Math.log2(i + 2)
  return dcg / idcg
}

/** nDCG@10 and recall@100 on the 300 SciFact test queries (BEIR), the setting published BM25 figures use. */
export async function scifactQuality(
  ctx: BenchContext,
  retriever: Retriever,
): Promise<{ ndcg10: number; recall100: number; queries: number }> {
  const corpus = scifactCorpus(ctx)
  const judged = scifactJudgements(ctx)
  const docs: RetrievalDoc[] = corpus.map((d) => ({
    id: d._id,
    title: d.title,
    body: d.text,
    tags: [],
    type: 'domain',
    scope: 'project',
  }))
  await retriever.apply({ revision: 'scifact', reset: true, upsert: docs, remove: [] })
  let ndcg = 0
  let recall = 0
  for (const { text, relevant } of judged) {
    const hits = await retriever.search({ text, limit: 100 })
    ndcg += ndcgAt10(
      hits.map((h) => h.id),
      relevant,
    )
    recall += hits.filter((h) => relevant.has(h.id)).length / relevant.size
  }
  return { ndcg10: ndcg / judged.length, recall100: recall / judged.length, queries: judged.length }
}

/** MiniSearch out of the box (no stemming, default BM25, no boosts): the same-run baseline. */
function plainMinisearch(): Retriever {
  let index = new MiniSearch<RetrievalDoc>({ fields: ['title', 'body'] })
  let revision: string | undefined
  return {
    name: 'minisearch-plain',
    revision: async () => revision,
    async apply(changes) {
      index = new MiniSearch<RetrievalDoc>({ fields: ['title', 'body'] })
      index.addAll(changes.upsert)
      revision = changes.revision
    },
    search: async (q) =>
      index
        .search(q.text)
        .slice(0, q.limit)
        .map((r) => ({ id: String(r.id), score: r.score })),
  }
}

export const scifactSuite: Suite = {
  name: 'scifact',
  about: 'retrieval quality: nDCG@10 and recall@100 on SciFact test queries',
  async run(ctx) {
    const base = await scifactQuality(ctx, plainMinisearch())
    const ours = await scifactQuality(ctx, minisearchRetriever())
    ctx.report({
      suite: 'scifact',
      figure: `minisearchRetriever nDCG@10 (${ours.queries} queries)`,
      value: ours.ndcg10.toFixed(3),
      baseline: `plain MiniSearch ${base.ndcg10.toFixed(3)}; published BM25 0.665 (BEIR), 0.679 (Anserini)`,
      ratio: ours.ndcg10 / base.ndcg10,
      target: '≥ 0.68',
      met: ours.ndcg10 >= 0.68,
    })
    ctx.report({
      suite: 'scifact',
      figure: 'minisearchRetriever recall@100',
      value: ours.recall100.toFixed(3),
      baseline: `plain MiniSearch ${base.recall100.toFixed(3)}; Anserini 0.925`,
      ratio: ours.recall100 / base.recall100,
    })
  },
}
