import type { Fact, FactType } from '../schema/fact.js'
import type { MemoryIndex } from './index-file.js'
import type { HistoryEntry } from './lookup.js'

// The memory service's contract: what each operation takes and returns.

export interface WriteResult {
  text: string
  action: 'created' | 'duplicate'
  id: string
  supersedes?: string
  index: Omit<MemoryIndex, 'text'>
  /** Close facts this write left active (not superseded), best first, at most 3; absent when none. */
  similar?: Array<{ id: string; title: string; reason: string }>
  /** Why the index could not be rewritten after the fact was stored (the fact is kept; `memory.index()` catches up); absent when it was. */
  indexStale?: string
}

/** What `writeMany` returns: each fact's result, in the order given, and the index after the batch. */
export interface WriteManyResult {
  /** One line a fact, the single write's first line (`created: fact-0016 (supersedes fact-0009)`, `exists: …`), then the index line. */
  text: string
  /** What `write` would have returned for each fact, had they been written one after another (the index figures are the batch's). */
  results: WriteResult[]
  index: Omit<MemoryIndex, 'text'>
  /** As in `WriteResult`: why the index could not be rewritten; absent when it was. */
  indexStale?: string
}

export interface SearchHit {
  fact: Fact
  /** The retriever's score (BM25 for both built-ins); comparable within one retriever. 0 for a fact named by id. */
  score: number
  /**
   * The score in units of the largest IDF a word can have in this memory, ln(1 + (N − 0.5) / 1.5)
   * for N active facts, divided by the retriever's `scoreScale`: about 1 for each distinctive query
   * word the fact contains (more in its title or tags). Comparable across memories and retrievers;
   * `promptContext.minScore` is on this scale.
   */
  relevance: number
}

/** The unit of `SearchHit.relevance` for a memory of `active` facts and a retriever's `scoreScale`. */
export function relevanceUnit(active: number, scoreScale = 1): number {
  return Math.log(1 + (Math.max(1, active) - 0.5) / 1.5) * scoreScale
}

export interface SearchResult {
  text: string
  query: string
  hits: SearchHit[]
  /** Active facts in memory, reported (and counted) only when nothing matched a keyword search. */
  active?: number
  /** Hits past the first `memoryRetrieval.wholeFacts`, printed one line each (id, type, title) after the blocks; absent when none. */
  brief?: number
  /** Hits left out under the relevance floor (`memoryRetrieval.minRelevance`, `minRelevanceRatio`); absent when none. */
  dropped?: number
  /** An id lookup (a query of fact ids only): the ids named that no fact has; absent when none. */
  missing?: string[]
}

export interface HistoryResult {
  /** One line a fact, oldest first: `id · created day · state · title`. */
  text: string
  id: string
  /** The supersedes chain through `id`, oldest first, each with what it is now. */
  chain: HistoryEntry[]
}

export interface ForgetResult {
  /** `forgotten: fact-0012`, then the index line. */
  text: string
  id: string
  reason: string
  /** When, ISO 8601. */
  forgotten: string
  index: Omit<MemoryIndex, 'text'>
  /** As in `WriteResult`: why the index could not be rewritten; absent when it was. */
  indexStale?: string
}

export interface IndexResult {
  text: string
  path: string
  index: MemoryIndex
}

export interface FactListOptions {
  type?: FactType
  /** `active` (default), `superseded`, `expired`, `forgotten` or `all`. */
  status?: 'active' | 'superseded' | 'expired' | 'forgotten' | 'all'
}

/** How a fact is written besides its input: who writes it (a team server's token name), kept in the fact's `author`. */
export interface FactWriteOptions {
  author?: string
}

/** How one search departs from the configuration (for the kernel's own callers). */
export interface SearchOptions {
  /** In place of `memoryRetrieval.minRelevanceRatio`: prompt context passes 0, its `minScore` decides. */
  minRelevanceRatio?: number
}

/** The memory service: facts written, found, indexed and listed. */
export interface MemoryService {
  /** `memory_write`: validate, deduplicate, supersede, store, rebuild the index. Throws INVALID_INPUT naming the field. */
  write(input: unknown, options?: FactWriteOptions): Promise<WriteResult>
  /**
   * `memory_write` with `facts`: many facts in one exclusive section (one lock, one index rebuild,
   * durability paid once), each planned in order with the rules of `write`, against the stored facts
   * and the batch's earlier facts (a later one may duplicate or supersede an earlier one). Every fact
   * is checked before any is written: a batch with one the kernel refuses writes nothing, and the
   * INVALID_INPUT names it (`facts[3]: …`) and its field. At most `WRITE_BATCH_MAX` facts.
   */
  writeMany(inputs: unknown, options?: FactWriteOptions): Promise<WriteManyResult>
  /**
   * `memory_search`: the active facts matching the query, best first, as the seed's blocks. A query
   * of fact ids only (`fact-0012 fact-0031`) returns those facts whatever their status, each not
   * active followed by a `status:` line, and one line naming the unknown ids; type, scope and limit
   * do not apply to it.
   */
  search(input: unknown, options?: SearchOptions): Promise<SearchResult>
  /** Rebuild the index from a full read of storage (picks up facts edited by other means). */
  index(): Promise<IndexResult>
  /** The index text as stored; rebuilt first when missing or out of date. */
  readIndex(): Promise<string>
  /** Facts by status (default active) and type, in id order. */
  list(options?: FactListOptions): Promise<Fact[]>
  /**
   * The first `limit` facts `list` would return (with `newest`, the last `limit`, newest first), and
   * how many it would return in all. Active facts of every type (the default) come from the write
   * catalog: a page reads `limit` facts, not every one; any other filter reads them all, as `list` does.
   */
  page(options: FactListOptions & { limit: number; newest?: boolean }): Promise<{ facts: Fact[]; total: number }>
  /** One fact by id, whatever its status. Throws NOT_FOUND. */
  get(id: string): Promise<Fact>
  /** The supersedes chain through a fact, both ways, oldest first. Throws NOT_FOUND. */
  history(id: string): Promise<HistoryResult>
  /**
   * `memory_forget`: the active fact leaves the index, the retriever and search, and stays in storage
   * with status `forgotten`, its reason and when. Throws NOT_FOUND for an unknown id, INVALID_INPUT
   * for a fact not active (superseded or already forgotten) or an empty reason.
   */
  forget(id: string, reason: string): Promise<ForgetResult>
  /** Active facts now; cheap in a short-lived process (stored figures, no full read). */
  activeCount(): Promise<number>
  /**
   * For long-lived processes, once after start: bring the write catalog and the retriever up to date,
   * then load the retriever whole (`'all'`, the default). `'search'` loads only what every search reads
   * of the retriever, leaving its postings to the searches that need them: what a first search needs
   * and no more (a server, before it answers `initialize`).
   */
  warm(what?: 'search' | 'all'): Promise<void>
}
