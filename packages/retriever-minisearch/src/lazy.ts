import MiniSearch, { type AsPlainObject, type Options, type SearchOptions } from 'minisearch'
import type { RetrievalDoc, SnapshotStore } from '@foundry/kernel/adapter'
import { boundedDistance, lowerBound } from '@foundry/kernel/adapter'
import { part, shardOf, type Docs, type Head, type Posting } from './snapshot.js'

/** How a query term is matched; mirrors the retriever's MiniSearch search options. */
export interface TermMatching {
  tokenize: (text: string) => string[]
  processTerm: (term: string) => string | null | undefined | false
  prefix: (term: string) => boolean
  /** Maximum edit distance for a term the dictionary lacks, 0 for none (a known term is matched as written). */
  fuzzy: (term: string) => number
}

/**
 * A snapshot opened without loading it: the documents and the dictionary are read at once, the
 * postings shard by shard as queries need them. Each search builds a MiniSearch over exactly the
 * terms the query can match (exact, prefix, fuzzy) with the full document statistics, so its
 * scores equal those of the whole index.
 */
export class LazyIndex {
  private readonly loaded = new Map<number, Map<string, Posting>>()
  private byLength: string[][] | undefined

  private constructor(
    readonly head: Head,
    private readonly store: SnapshotStore,
    private readonly docs: Docs,
    private readonly terms: string[],
    private readonly options: Options<RetrievalDoc>,
  ) {}

  /** Open the build the head names; `undefined` when a part is missing or unreadable. */
  static async open(store: SnapshotStore, head: Head, options: Options<RetrievalDoc>): Promise<LazyIndex | undefined> {
    try {
      const [docs, terms] = await Promise.all([
        store.read(part(head.build, 'docs')),
        store.read(part(head.build, 'terms')),
      ])
      if (docs === undefined || terms === undefined) return undefined
      return new LazyIndex(head, store, JSON.parse(docs) as Docs, terms ? terms.split('\n') : [], options)
    } catch {
      return undefined
    }
  }

  /**
   * A MiniSearch with only the postings `text` can match, and only the documents those postings (or
   * `also`, ids about to be replaced) name; the collection's statistics (document count, average
   * lengths) stay those of the whole index, so every score is the whole index's.
   */
  async partial(text: string, matching: TermMatching, also: Iterable<string> = []): Promise<MiniSearch<RetrievalDoc>> {
    const wanted = this.expand(text, matching)
    const entries: Posting[] = []
    const named = new Set<string>()
    for (const term of wanted) {
      const shard = await this.shard(shardOf(term, this.head.shards))
      const posting = shard.get(term)
      if (!posting) continue
      entries.push(posting)
      for (const docs of Object.values(posting[1])) for (const shortId of Object.keys(docs)) named.add(shortId)
    }
    for (const id of also) {
      const shortId = this.shortIds().get(id)
      if (shortId !== undefined) named.add(shortId)
    }
    const pick = <T>(all: Record<string, T>) => {
      const out: Record<string, T> = {}
      for (const shortId of named) if (shortId in all) out[shortId] = all[shortId]!
      return out
    }
    const { documentIds, fieldLength, storedFields } = this.docs
    const subset = {
      ...this.docs,
      documentIds: pick(documentIds),
      fieldLength: pick(fieldLength),
      storedFields: pick(storedFields),
      index: entries,
    }
    return MiniSearch.loadJS(subset as AsPlainObject, this.options)
  }

  private reverse: Map<string, string> | undefined
  private shortIds(): Map<string, string> {
    return (this.reverse ??= new Map(
      Object.entries(this.docs.documentIds).map(([shortId, id]) => [String(id), shortId]),
    ))
  }

  /** The whole index (every shard). */
  async full(): Promise<MiniSearch<RetrievalDoc>> {
    const entries: Posting[] = []
    for (let i = 0; i < this.head.shards; i++)
      for (const posting of (await this.shard(i)).values()) entries.push(posting)
    return MiniSearch.loadJS({ ...this.docs, index: entries } as AsPlainObject, this.options)
  }

  private async shard(i: number): Promise<Map<string, Posting>> {
    let shard = this.loaded.get(i)
    if (!shard) {
      const text = await this.store.read(part(this.head.build, `s${i}`))
      if (text === undefined) throw new Error(`snapshot shard ${i} of build ${this.head.build} is missing`)
      shard = new Map((JSON.parse(text) as Posting[]).map((p) => [p[0], p]))
      this.loaded.set(i, shard)
    }
    return shard
  }

  /** Dictionary terms a query can match: each processed query term exactly, or, when the dictionary lacks it, as a prefix or within its edit distance. */
  private expand(text: string, matching: TermMatching): Set<string> {
    const out = new Set<string>()
    for (const token of matching.tokenize(text)) {
      const term = matching.processTerm(token)
      if (!term) continue
      let at = lowerBound(this.terms, term)
      const known = this.terms[at] === term
      if (known) out.add(term)
      if (!known && matching.prefix(term))
        for (; at < this.terms.length && this.terms[at]!.startsWith(term); at++) out.add(this.terms[at]!)
      const distance = known ? 0 : matching.fuzzy(term)
      if (distance === 0) continue
      const buckets = (this.byLength ??= bucketByLength(this.terms))
      for (let length = Math.max(0, term.length - distance); length <= term.length + distance; length++)
        for (const candidate of buckets[length] ?? [])
          if (boundedDistance(term, candidate, distance) <= distance) out.add(candidate)
    }
    return out
  }
}

function bucketByLength(terms: string[]): string[][] {
  const buckets: string[][] = []
  for (const term of terms) (buckets[term.length] ??= []).push(term)
  return buckets
}

export type { SearchOptions }
