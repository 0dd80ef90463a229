import type { Storage } from '../../storage.js'
import type { SuiteOptions } from '../register.js'

/**
 * The least of a child process the multiProcess group needs: Node's `ChildProcess` (from `spawn`)
 * fits. The suite imports nothing from Node; the adapter's test starts the child.
 */
export interface ChildProcessLike {
  stdout: { on(event: 'data', listener: (chunk: { toString(): string }) => void): unknown } | null
  stderr: { on(event: 'data', listener: (chunk: { toString(): string }) => void): unknown } | null
  stdin: { end(text: string): unknown } | null
  on(event: 'close', listener: (code: number | null) => void): unknown
}

export interface StorageSuiteOptions extends SuiteOptions {
  /** A new, empty place for a store: a temporary folder, a database file or URL. With `open`, the reopen group runs. */
  fresh?: () => string | Promise<string>
  /** Open a store on the data at `target` (from `fresh`); stores opened on one target share their data. */
  open?: (target: string) => Storage | Promise<Storage>
  /**
   * Start a child process running the adapter's child module (one line: `await storageChild(open, process)`)
   * with `args`, e.g. `(args) => spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/storage-child.ts', ...args])`.
   * With `fresh`, `open` and `flags.multiProcess`, the multiProcess group runs.
   */
  spawn?: (args: string[]) => ChildProcessLike
  /** The multiProcess group's sizes: `writers` × `writes` kernel writes (default 4 × 30), `appenders` × `calls` log appends (default 4 × 30). */
  processes?: { writers?: number; writes?: number; appenders?: number; calls?: number }
}

/** What a case gets besides its store: a second store of the same kind, and the store's place when the group has one. */
export interface Place {
  /** Another new, empty store, as `make` gives (closed by the case). */
  another(): Promise<Storage>
  /** The store's target (reopen and multiProcess groups only). */
  target: string
  /** A new instance on the same data (reopen and multiProcess groups only; closed by the case). */
  reopen(): Promise<Storage>
  options: StorageSuiteOptions
}

export type StorageCase = [name: string, fn: (storage: Storage, place: Place) => Promise<void>]

/** Cases that share a requirement: an option the adapter passes, a flag its stores declare. */
export interface StorageGroup {
  name: 'basic' | 'batch' | 'logs' | 'changeLog' | 'transactional' | 'reopen' | 'transfer' | 'review' | 'multiProcess'
  cases: StorageCase[]
  /** Why the group cannot run with these options (checked when registering), or undefined. */
  unavailable?(options: StorageSuiteOptions): string | undefined
  /** Why the group does not apply to this store (checked on its first case's store), or undefined. */
  unfit?(storage: Storage): string | undefined
  /** The store is opened at a `fresh` target through `open`, rather than by `make`. */
  placed?: boolean
}
