import type { FactType } from './schema/fact.js'

/** What a retriever indexes of a fact. */
export interface RetrievalDoc {
  id: string
  title: string
  body: string
  tags: string[]
  type: FactType
  scope: string
}

export interface RetrievalQuery {
  text: string
  /** Most hits to return, best first. */
  limit: number
  type?: FactType
  scope?: string
}

export interface RetrievalHit {
  id: string
  /** Higher is better. Comparable within one retriever only (BM25 with field boosts for both built-ins). */
  score: number
}

/** A change set the kernel applies after reading the storage at `revision`. */
export interface RetrievalChanges {
  /** The storage revision the index reflects once the changes are applied. */
  revision: string
  /** Drop everything first (the kernel sends every active fact). */
  reset?: boolean
  upsert: RetrievalDoc[]
  remove: string[]
}

/**
 * Matching abilities beyond exact words that a retriever declares; the conformance suite checks each
 * declared one and, for each undeclared one, that exact words still match. Absent means none.
 */
export interface RetrieverCapabilities {
  /** Inflections of a word match each other: `deploying approval` finds "Deployments require two approvals". */
  stemming?: boolean
  /** A query word matches the longer indexed words it begins: `kubernet` finds "Kubernetes". */
  prefix?: boolean
  /** A query word the index lacks matches indexed words a small edit away: `kubernetse` finds "Kubernetes". */
  fuzzy?: boolean
  /**
   * Text written without spaces between words (Chinese, Japanese, Thai, Lao, Khmer, Myanmar) is split
   * into its words, in documents and queries: `決済` finds "注文は決済後に確定する". Without it, only
   * such a text's whole run between spaces or punctuation matches.
   */
  segmentation?: boolean
}

/**
 * Keyword retrieval over the active facts. The kernel keeps it in step with storage: it asks
 * `revision()`, and when that differs from the storage's it sends the changes (or everything).
 */
export interface Retriever {
  readonly name: string
  /**
   * What one query word of the highest possible IDF, found once in a document of average length,
   * adds to a hit's score, as a multiple of that IDF: 1 for plain BM25 (the default). The kernel
   * divides scores by it to report `relevance` on one scale whatever the retriever. Measure it with
   * `calibrateScoreScale` (`@foundry/kernel/testing`); the conformance suite holds it within 30%.
   */
  readonly scoreScale?: number
  /** The matching abilities beyond exact words it offers; none when absent. */
  readonly capabilities?: RetrieverCapabilities
  /** The storage revision the index reflects, or `undefined` when it reflects nothing (fresh, or a stale snapshot). */
  revision(): Promise<string | undefined>
  /** Apply a change set; afterwards `revision()` returns `changes.revision`. */
  apply(changes: RetrievalChanges): Promise<void>
  /** Hits for the query, best first, at most `limit`; an empty array when nothing matches. */
  search(query: RetrievalQuery): Promise<RetrievalHit[]>
  /**
   * Called once by `createKernel` with a place to persist state beside the data, so the next process
   * restores instead of re-indexing. Retrievers that persist by themselves ignore it.
   */
  attach?(store: SnapshotStore): void
  /**
   * Load now what a later search would load lazily (long-lived processes call it once after start);
   * with `postings: false`, what every search needs, leaving the rest to the searches that need it.
   */
  warm?(options?: { postings?: boolean }): Promise<void>
  /**
   * Persist deferred state (a retriever may defer snapshots to keep writes fast). With `all`, persist
   * anything pending; without, only what the next process would otherwise pay more to replay.
   */
  flush?(all?: boolean): Promise<void>
  close?(): Promise<void>
}

/** Named text blobs kept beside the data (in storage's `meta` collection). */
export interface SnapshotStore {
  read(name: string): Promise<string | undefined>
  write(name: string, text: string): Promise<void>
  remove(name: string): Promise<void>
}
