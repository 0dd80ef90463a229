import type { FoundryEvent } from './schema/event.js'
import type { Fact } from './schema/fact.js'
import type { Artifact, Contract, Runbook } from './schema/records.js'

/** What each collection holds. `meta` holds derived text: the memory index and retriever snapshots. */
export interface Collections {
  facts: Fact
  runbooks: Runbook
  contracts: Contract
  artifacts: Artifact
  meta: string
}
export type CollectionName = keyof Collections

/**
 * Keys: facts by id (`fact-0004`), runbooks by slug, contracts by id, artifacts by `<wave>/<agent>`,
 * meta by a slash-separated name (`index`, `retriever/minisearch/head`). The kernel sanitises keys
 * before they arrive; an adapter still refuses any key that would leave its root.
 */
export interface Storage {
  readonly name: string
  readonly flags: StorageFlags

  /** The record under `key`, or `undefined` when there is none. Throws CORRUPT when it exists but cannot be read. */
  get<C extends CollectionName>(collection: C, key: string): Promise<Collections[C] | undefined>
  /**
   * Every readable record of the collection, ordered by key. Records that cannot be read are left out
   * and reported through `onProblem`, so one bad file never hides the rest.
   */
  list<C extends CollectionName>(collection: C, options?: ListOptions): Promise<Collections[C][]>
  /** Create or replace atomically: a reader sees the old record or the new one, never half of either. */
  put<C extends CollectionName>(collection: C, key: string, value: Collections[C]): Promise<void>
  /** Remove the record; returns false when there was none. */
  delete(collection: CollectionName, key: string): Promise<boolean>

  /**
   * Run `fn` while holding the store's exclusive write section, across every process sharing the
   * store: reads inside see every write committed before, and no other `exclusive` section runs
   * until `fn` settles. Not reentrant. Throws UNAVAILABLE when the section cannot be entered in time.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>

  /**
   * An opaque token that changes whenever the collection changes, by this process or another.
   * Cheap: callers ask before every read of a cache.
   */
  revision(collection: CollectionName): Promise<string>
  /**
   * Keys written or deleted since `revision` (a token `revision()` returned), or `undefined` when the
   * store cannot tell (no change log, or the log no longer reaches back that far).
   */
  changes?(collection: CollectionName, since: string): Promise<string[] | undefined>

  /** Append one event to the log; concurrent appends never interleave. */
  appendEvent(event: FoundryEvent): Promise<void>
  /** Every event in append order; unreadable lines are skipped. */
  readEvents(): Promise<FoundryEvent[]>

  /** Where a record lives, for messages: a path or URI. */
  locate(collection: CollectionName, key: string): string
  /** Release handles (database connections, locks). Idempotent. */
  close?(): Promise<void>
}

export interface ListOptions {
  /** Only keys starting with this prefix (e.g. `audit/` for one wave's artifacts). */
  prefix?: string
  /** Called once for each record that exists but cannot be read; it is then left out. */
  onProblem?: (problem: StorageProblem) => void
}

export interface StorageProblem {
  collection: CollectionName
  key: string
  /** The file, row or URI at fault. */
  location: string
  message: string
}

/** Optional abilities, read by the kernel; never a check of the adapter's name. */
export interface StorageFlags {
  /** Data survives the process. */
  persistent: boolean
  /** `exclusive` and `put` are safe with several processes sharing the store. */
  multiProcess: boolean
  /** `changes()` is implemented. */
  changeLog: boolean
}
