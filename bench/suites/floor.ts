import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ftsRetriever } from '@foundry/adapter-sqlite'
import {
  createKernel,
  estimateTokens,
  factId,
  memoryStorage,
  promptQuery,
  type ConfigFile,
  type Fact,
  type FactInput,
  type Retriever,
  type Storage,
} from '@foundry/kernel'
import { minisearchRetriever } from '@foundry/retriever-minisearch'
import type { BenchContext, Suite } from '../lib/context.js'
import { scifactCorpus } from '../lib/corpus.js'
import { ndcgAt10, scifactJudgements } from './scifact.js'

const LARKSPUR = new URL('../../packages/hooks/test/fixtures/larkspur-facts.jsonl', import.meta.url)

/** The settings compared, each in the same run over the same index. */
const FLOORS: Array<[label: string, config: ConfigFile]> = [
  ['floor off', { memoryRetrieval: { minRelevance: 0 } }],
  ['floor 0.5 (default)', {}],
  ['floor 0.5 + 0.4 of the top hit', { memoryRetrieval: { minRelevanceRatio: 0.4 } }],
]

/** Queries about nothing the Larkspur memory (a veterinary clinic SaaS) holds, as an agent or a user would type them. */
const OFF_TOPIC = [
  'kubernetes helm chart',
  'graphql subscriptions',
  'kafka consumer lag',
  'terraform state locking',
  'django migrations',
  'android gradle build',
  'rust borrow checker',
  'webpack bundle size',
  'ios push certificates',
  'elasticsearch shards',
  'spark dataframe join',
  'kotlin coroutines',
  'unity shader',
  'blockchain smart contract',
  'css grid layout',
  'docker compose volumes',
  'write a haiku about autumn leaves',
  'explain the difference between TCP and UDP',
  'summarise the plot of Moby Dick in three sentences',
  'how do I center a div with flexbox',
  'give me a regex that matches an email address',
  'what time is it in Tokyo right now?',
].map(promptQuery)

const RETRIEVERS: Array<[name: string, make: (ctx: BenchContext, tag: string) => Retriever]> = [
  ['MiniSearch', () => minisearchRetriever()],
  ['FTS5', (ctx, tag) => ftsRetriever({ path: join(ctx.scratch, `floor-${tag}.db`) })],
]

/**
 * `memory_search`'s relevance floor (memoryRetrieval.minRelevance, minRelevanceRatio) measured
 * through the kernel, off and on, over one index: SciFact quality and the tokens of the answers,
 * and on the hand-written Larkspur memory how many hits on topic stay and how many off topic go.
 */
export const floorSuite: Suite = {
  name: 'floor',
  about:
    "memory_search's relevance floor off vs on: SciFact nDCG@10 and tokens per question; Larkspur hits kept on topic and left out off topic",
  async run(ctx) {
    for (const [name, make] of RETRIEVERS) {
      await scifact(ctx, name, make(ctx, 'scifact'))
      await larkspur(ctx, name, make(ctx, 'larkspur'))
    }
  },
}

/** Kernels with each floor over one storage and one retriever (indexed once, by the first search). */
function kernels(storage: Storage, retriever: Retriever) {
  return FLOORS.map(([label, config]) => ({ label, kernel: createKernel({ storage, retriever, config }) }))
}

async function scifact(ctx: BenchContext, name: string, retriever: Retriever): Promise<void> {
  const storage = memoryStorage()
  const source = new Map<string, string>()
  for (const [i, doc] of scifactCorpus(ctx).entries()) {
    const id = factId(i + 1)
    source.set(id, doc._id)
    const fact: Fact = {
      id,
      title: doc.title,
      body: doc.text,
      type: 'domain',
      scope: 'project',
      tags: [],
      confidence: 'medium',
      source: 'code',
      created: '2026-01-01T00:00:00.000Z',
      status: 'active',
    }
    await storage.put('facts', id, fact)
  }
  const judged = scifactJudgements(ctx)
  let off: { ndcg: number; tokens: number } | undefined
  for (const { label, kernel } of kernels(storage, retriever)) {
    let ndcg = 0
    let tokens = 0
    let dropped = 0
    for (const { text, relevant } of judged) {
      const result = await kernel.memory.search({ query: text, limit: 10 })
      ndcg += ndcgAt10(
        result.hits.map((h) => source.get(h.fact.id)!),
        relevant,
      )
      tokens += estimateTokens(result.text)
      dropped += result.dropped ?? 0
    }
    const figures = { ndcg: ndcg / judged.length, tokens: tokens / judged.length }
    off ??= figures
    ctx.report({
      suite: 'floor',
      figure: `SciFact through memory_search (${name}, limit 10), ${label}: nDCG@10 / tokens per question`,
      value: `${figures.ndcg.toFixed(3)} / ${figures.tokens.toFixed(0)} (${(dropped / judged.length).toFixed(2)} hits left out a question)`,
      baseline: figures === off ? undefined : `floor off ${off.ndcg.toFixed(3)} / ${off.tokens.toFixed(0)}`,
      ratio: figures === off ? undefined : figures.tokens / off.tokens,
    })
  }
  await retriever.close?.()
}

async function larkspur(ctx: BenchContext, name: string, retriever: Retriever): Promise<void> {
  const storage = memoryStorage()
  const writer = createKernel({ storage, retriever })
  const facts = readFileSync(LARKSPUR, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as FactInput)
  for (const fact of facts) await writer.memory.write(fact)
  // Each tag as a query (`online-booking` → "online booking"): the facts carrying it are on topic.
  const tagged = new Map<string, Set<string>>()
  for (const fact of await writer.memory.list())
    for (const tag of fact.tags) (tagged.get(tag) ?? tagged.set(tag, new Set()).get(tag)!).add(fact.id)
  let off: { onTopic: number; onTokens: number; offHits: number; offTokens: number } | undefined
  for (const { label, kernel } of kernels(storage, retriever)) {
    let onTopic = 0
    let onTokens = 0
    for (const [tag, ids] of tagged) {
      const result = await kernel.memory.search({ query: tag.replaceAll('-', ' ') })
      onTopic += result.hits.filter((h) => ids.has(h.fact.id)).length
      onTokens += estimateTokens(result.text)
    }
    let offHits = 0
    let offTokens = 0
    for (const query of OFF_TOPIC) {
      const result = await kernel.memory.search({ query })
      offHits += result.hits.length
      offTokens += estimateTokens(result.text)
    }
    const figures = { onTopic, onTokens: onTokens / tagged.size, offHits, offTokens: offTokens / OFF_TOPIC.length }
    off ??= figures
    const same = figures === off
    ctx.report({
      suite: 'floor',
      figure: `Larkspur, ${tagged.size} tag queries (${name}), ${label}: hits on a fact carrying the tag / tokens per question`,
      value: `${figures.onTopic} / ${figures.onTokens.toFixed(0)}`,
      baseline: same ? undefined : `floor off ${off.onTopic} / ${off.onTokens.toFixed(0)}`,
      ratio: same ? undefined : figures.onTopic / off.onTopic,
    })
    ctx.report({
      suite: 'floor',
      figure: `Larkspur, ${OFF_TOPIC.length} off-topic queries (${name}), ${label}: hits / tokens per question`,
      value: `${figures.offHits} / ${figures.offTokens.toFixed(0)}`,
      baseline: same ? undefined : `floor off ${off.offHits} / ${off.offTokens.toFixed(0)}`,
      ratio: same ? undefined : figures.offTokens / off.offTokens,
    })
  }
  await retriever.close?.()
}
