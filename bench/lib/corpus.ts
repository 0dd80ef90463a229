import { readFileSync } from 'node:fs'
import { FACT_TYPES, factId, type Fact, type FactInput, type Storage } from '@foundry/kernel'
import type { RetrievalDoc } from '@foundry/kernel/adapter'
import { requireData, type BenchContext } from './context.js'

export interface ScifactDoc {
  _id: string
  title: string
  text: string
}

export function readJsonl<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T)
}

let scifact: ScifactDoc[] | undefined
export function scifactCorpus(ctx: BenchContext): ScifactDoc[] {
  return (scifact ??= readJsonl<ScifactDoc>(requireData(ctx, 'scifact/corpus.jsonl')))
}

/**
 * `n` realistic, distinct facts built from SciFact abstracts: a title of at most 80 characters
 * and a body of 40–100 words, types and confidences rotating. Deterministic.
 */
export function syntheticFacts(ctx: BenchContext, n: number): FactInput[] {
  const corpus = scifactCorpus(ctx)
  const facts: FactInput[] = []
  for (let i = 0; i < n; i++) {
    const doc = corpus[i % corpus.length]!
    const round = Math.floor(i / corpus.length)
    const words = doc.text.split(/\s+/)
    const start = (round * 37) % Math.max(1, words.length - 100)
    const length = 40 + ((i * 7) % 60)
    const type = FACT_TYPES[i % FACT_TYPES.length]!
    const body = words.slice(start, start + length).join(' ')
    const title = doc.title.slice(0, 80).trim()
    facts.push({
      title,
      // Each pass over the corpus gets its own scope, so repeated titles never supersede each other.
      scope: round ? `module:pass${round}` : 'project',
      body:
        type === 'decision' || type === 'risk'
          ? `${body.split(' ').slice(0, 90).join(' ')}\nWhy: evidence.\nHow to apply: cite it.`
          : body,
      type,
      tags: [`t${i % 40}`],
      confidence: (['high', 'medium', 'low'] as const)[i % 3],
    })
  }
  return facts
}

/** Put `n` synthetic facts straight into storage (ids fact-0001…), bypassing the write path: benchmark setup. */
export async function seedFacts(ctx: BenchContext, storage: Storage, n: number, start = 1): Promise<void> {
  const inputs = syntheticFacts(ctx, n + start - 1).slice(start - 1)
  const created = new Date('2026-01-01T00:00:00Z').getTime()
  for (const [i, input] of inputs.entries()) {
    const id = factId(start + i)
    const fact: Fact = {
      id,
      title: input.title,
      body: input.body,
      type: input.type,
      scope: input.scope ?? 'project',
      tags: input.tags ?? [],
      confidence: input.confidence ?? 'medium',
      source: 'code',
      created: new Date(created + (start + i) * 1000).toISOString(),
      status: 'active',
    }
    await storage.put('facts', id, fact)
  }
}

/** `n` synthetic facts as the kernel hands them to a retriever (ids fact-1, fact-2, …). */
export function factDocs(ctx: BenchContext, n: number): RetrievalDoc[] {
  return syntheticFacts(ctx, n).map((f, i) => ({
    id: factId(i + 1),
    title: f.title,
    body: f.body,
    tags: f.tags ?? [],
    type: f.type,
    scope: f.scope ?? 'project',
  }))
}
