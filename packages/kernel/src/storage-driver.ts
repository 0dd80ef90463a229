import type {
  CollectionName,
  ListOptions,
  LogPage,
  RecordOf,
  StorageChange,
  StorageEntry,
  StorageFlags,
  StorageProblem,
  WriteOptions,
} from './storage.js'

/**
 * The log that holds the events (`Storage.appendEvent`/`readEvents`), one JSON text an entry. No
 * consumer's log can take the name: `assertLogName` refuses a leading dot. A driver may keep it
 * where its events always were (the folder layout's `metrics/events.jsonl`, an events table). It
 * is read whole, from cursor 0, so its cursors mean nothing (an append may answer 0); `logs()` never
 * names it.
 */
export const EVENTS_LOG = '.events'

/**
 * What a storage adapter implements; `createStorage(driver)` turns it into the kernel's `Storage`.
 * The wrapper has already checked every collection, key and log name (`assertCollection`,
 * `assertKey`, `assertLogName`; `EVENTS_LOG` aside), refuses calls once closed, and normalises log
 * arguments (entries are strings, never an empty list; a cursor is a whole number ≥ 0; a limit a
 * whole number ≥ 0 or absent). A driver does only the storing. The members without `?` are required.
 */
export interface StorageDriver {
  /** Short, for messages (`fs`, `sqlite`). */
  readonly name: string
  readonly flags: StorageFlags

  /** The record under `key`, or `undefined`. Throws CORRUPT when it exists but cannot be read. */
  get<C extends CollectionName>(collection: C, key: string): Promise<RecordOf<C> | undefined>
  /** Create or replace atomically, with `durability` (see `Storage.put`). */
  put<C extends CollectionName>(collection: C, key: string, value: RecordOf<C>, options?: WriteOptions): Promise<void>
  /** Remove the record; false when there was none. */
  delete(collection: CollectionName, key: string, options?: WriteOptions): Promise<boolean>
  /** The keys starting with `prefix` (`''`: all), sorted; reads no record. What cannot be a record goes to `onProblem` (see `Storage.keys`). */
  keys(collection: CollectionName, prefix: string, onProblem?: (problem: StorageProblem) => void): Promise<string[]>
  /** The store's exclusive write section, across processes when `flags.multiProcess` (see `Storage.exclusive`). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>
  /** A token that changes whenever the collection does, by any process; cheap. */
  revision(collection: CollectionName): Promise<string>
  /** Append the entries (at least one) after every entry before, together; resolves to the cursor after the last. */
  appendLog(log: string, entries: readonly string[], options?: WriteOptions): Promise<number>
  /**
   * Entries from `cursor`, at most `limit` (absent: all), and the cursor after the last one returned.
   * A missing log reads empty; with nothing to read, the cursor given, or the end when it lies past it.
   */
  readLog(log: string, cursor: number, limit?: number): Promise<LogPage>

  /** Many records at once (see `Storage.putMany`): durable with one barrier. Absent: `put` each in turn. */
  putMany?<C extends CollectionName>(
    collection: C,
    entries: ReadonlyArray<StorageEntry<C>>,
    options?: WriteOptions,
  ): Promise<void>
  /** Every readable record, ordered by key, problems to `onProblem`. Absent: `keys` then `get` each. */
  list?<C extends CollectionName>(collection: C, options: ListOptions): Promise<RecordOf<C>[]>
  /** Keys written or deleted since a revision, or `undefined` when it cannot tell; present exactly when `flags.changeLog`. */
  changes?(collection: CollectionName, since: string): Promise<string[] | undefined>
  /** The cursor after the last entry, 0 for a missing log. Absent: `readLog` from past the end. */
  logEnd?(log: string): Promise<number>
  /** The logs holding entries, sorted, by prefix. Absent: none are named, and a copy carries no log. */
  logs?(prefix: string): Promise<string[]>
  /** Remove the log and its entries (see `Storage.deleteLog`); false when it held none. Absent: logs are never deleted. */
  deleteLog?(log: string): Promise<boolean>
  /** Collections holding records, sorted. Absent: the kernel's collections that hold a key (a copy misses open ones). */
  collections?(): Promise<CollectionName[]>
  /** Be told of changes by any process (see `Storage.onChange`). */
  onChange?(listener: (change: StorageChange) => void): () => void
  /** Where a record lives, for messages. Absent: `<name>://<collection>/<key>`. */
  locate?(collection: CollectionName, key: string): string
  /** Release handles; called once, however often the storage is closed. */
  close?(): Promise<void>
}
