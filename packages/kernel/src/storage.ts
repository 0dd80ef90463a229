import type { FoundryEvent } from './schema/event.js'
import type { Fact } from './schema/fact.js'
import type { Proposal } from './schema/proposal.js'
import type { Artifact, Contract, Runbook } from './schema/records.js'

/** A JSON value: what an open collection holds. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

/**
 * The kernel's collections and what each holds. `meta` holds derived text: the memory index,
 * retriever snapshots, memory stats.
 *
 * Collections are open: a consumer keeps its own records in a collection named
 * `<consumer>.<name>` (`marbles.runs`), with no kernel change. Its values are JSON; name their type
 * by merging into this interface:
 * ```ts
 * declare module '@foundry/kernel' { interface Collections { 'marbles.runs': RunRecord } }
 * ```
 */
export interface Collections {
  facts: Fact
  runbooks: Runbook
  contracts: Contract
  artifacts: Artifact
  meta: string
  /** The review queue (`kernel.review`): proposed facts, kept apart from `facts`. */
  'memory.proposals': Proposal
}
/** The kernel's own collections. */
export type KernelCollection = 'facts' | 'runbooks' | 'contracts' | 'artifacts' | 'meta'
/** A consumer's collection: `<consumer>.<name>`, each part `[a-z][a-z0-9-]*` (see `isCollectionName`). */
export type OpenCollection = `${string}.${string}`
export type CollectionName = KernelCollection | OpenCollection | (keyof Collections & string)
/** What a collection holds: its declared type, or any JSON value for an undeclared open collection. */
export type RecordOf<C extends CollectionName> = C extends keyof Collections ? Collections[C] : JsonValue

/**
 * Keys: facts by id (`fact-0004`), runbooks by slug, contracts by id, artifacts by `<wave>/<agent>`,
 * meta and open collections by a slash-separated name (`index`, `retriever/minisearch/head`,
 * `run-7f3a/steps`). The kernel sanitises keys before they arrive; a storage still refuses any key
 * that would leave its root (`assertKey`, done by `createStorage`).
 *
 * What consumers use. An adapter writes the smaller `StorageDriver` (`storage-driver.ts`) and
 * returns `createStorage(driver)`, which adds the checks, the events and the defaults.
 */
export interface Storage {
  readonly name: string
  readonly flags: StorageFlags

  /** The record under `key`, or `undefined` when there is none. Throws CORRUPT when it exists but cannot be read. */
  get<C extends CollectionName>(collection: C, key: string): Promise<RecordOf<C> | undefined>
  /**
   * Every readable record of the collection, ordered by key. Records that cannot be read are left out
   * and reported through `onProblem`, so one bad file never hides the rest.
   */
  list<C extends CollectionName>(collection: C, options?: ListOptions): Promise<RecordOf<C>[]>
  /**
   * Every key of the collection, sorted, optionally only those starting with `prefix`; cheap (no
   * record is read). Something stored that cannot be a record of it (a misnamed file) is left out and
   * reported through `onProblem`, as `list` reports it.
   */
  keys(collection: CollectionName, prefix?: string, onProblem?: (problem: StorageProblem) => void): Promise<string[]>
  /**
   * Create or replace atomically: a reader sees the old record or the new one, never half of either.
   * `durability` says what a crash or power loss may take (default `durable`: nothing once resolved).
   */
  put<C extends CollectionName>(collection: C, key: string, value: RecordOf<C>, options?: WriteOptions): Promise<void>
  /**
   * Create or replace many records of one collection, each atomically as `put` does, in order (a key
   * given twice keeps its last value). With `durable` (the default) every one is durable once it
   * resolves, for about one barrier's cost rather than one per record (one fsync batch, one
   * transaction). Not a transaction of its own: a crash before it resolves may keep any of them, so a
   * caller that needs an order across records puts them in separate calls.
   */
  putMany<C extends CollectionName>(
    collection: C,
    entries: ReadonlyArray<StorageEntry<C>>,
    options?: WriteOptions,
  ): Promise<void>
  /** Remove the record; returns false when there was none. */
  delete(collection: CollectionName, key: string, options?: WriteOptions): Promise<boolean>
  /** Every collection holding at least one record, kernel and open ones, sorted: what a lossless copy walks. */
  collections(): Promise<CollectionName[]>

  /**
   * Run `fn` while holding the store's exclusive write section, across every process sharing the
   * store: reads inside see every write committed before, and no other `exclusive` section runs
   * until `fn` settles. Throws UNAVAILABLE when the section cannot be entered in time.
   *
   * With `flags.transactional`, a section that throws leaves no trace (its writes roll back), and a
   * nested call from inside `fn` rejects with UNSUPPORTED. Without it, the writes made before the
   * throw stay, and callers must order their writes so that any prefix of them is consistent (the
   * kernel does); a nested call is a programming error and may deadlock.
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
  /** Every event in append order, whatever its kind; only lines that cannot be parsed are skipped. */
  readEvents(): Promise<FoundryEvent[]>

  /**
   * Append entries to the named log (created by the first append), after every entry appended before,
   * by this process or another; one call's entries stay together. Resolves once they are stored with
   * `durability`, to the cursor after the last of them. Names are shaped like meta keys (`marbles/run-7f3a`).
   */
  appendLog(log: string, entries: readonly string[], options?: WriteOptions): Promise<number>
  /**
   * Entries from `cursor` (0: the first), at most `limit` (default: all), and the cursor after the
   * last one returned. A missing log reads as empty. An entry cut short by a crash is never returned.
   */
  readLog(log: string, cursor: number, options?: { limit?: number }): Promise<LogPage>
  /** The cursor after the last entry (0 for a missing log): cheap, so a watcher polls it to learn there is more. */
  logEnd(log: string): Promise<number>
  /** The names of the logs holding entries, sorted, optionally only those starting with `prefix`. */
  logs(prefix?: string): Promise<string[]>
  /**
   * Remove the named log and every entry of it (retention); false when it held none. Afterwards it
   * reads as missing (end 0). Absent when the driver cannot delete logs.
   */
  deleteLog?(log: string): Promise<boolean>

  /** Be told when the store changes, by this process or another (LISTEN/NOTIFY, file watching…). Returns the unsubscribe function. Absent: poll `revision()` / `logEnd()`. */
  onChange?(listener: (change: StorageChange) => void): () => void

  /** Where a record lives, for messages: a path or URI. */
  locate(collection: CollectionName, key: string): string
  /** Release handles (database connections, locks). Idempotent. */
  close?(): Promise<void>
}

/** One record of a `putMany`: its key and value. */
export interface StorageEntry<C extends CollectionName> {
  key: string
  value: RecordOf<C>
}

/** What `onChange` reports: a collection that changed (a put or delete), or a log appended to. */
export type StorageChange = { collection: CollectionName } | { log: string }

export interface WriteOptions {
  /**
   * `durable` (default): once the call resolves, neither a crash nor a power loss loses the write.
   * `relaxed`: a power loss may lose the last writes (never half of one): for caches, snapshots and
   * anything else that is rebuilt when lost.
   */
  durability?: 'durable' | 'relaxed'
}

export interface LogPage {
  entries: string[]
  /**
   * Pass it back to read on: after the last entry returned. When nothing was read, the cursor given,
   * or the log's end when the one given lies past it.
   */
  cursor: number
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
  /** `exclusive` rolls back when its section throws, and refuses to nest (see `exclusive`). */
  transactional: boolean
}
