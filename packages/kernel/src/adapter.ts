import type { Static, TSchema } from 'typebox'
import type { Retriever } from './retrieval.js'
import type { Storage } from './storage.js'
import type { StorageDriver } from './storage-driver.js'

/**
 * Where an adapter opens: the project it serves. The composition root (`@foundry/project`) builds it;
 * adapters resolve their relative paths against `root` or `dataDir`.
 */
export interface AdapterSite {
  /** The project root, absolute. */
  root: string
  /** The project's data folder, absolute (`<root>/.foundry`). */
  dataDir: string
}

/**
 * How a storage adapter plugs into the composition root: `config.json`'s `"storage": { "kind", …options }`
 * names it by `kind`, its `options` schema validates the rest, and `open` builds it. Each adapter
 * package exports one; registering it is one line in `@foundry/project`.
 */
export interface StorageDescriptor<
  S extends TSchema = TSchema,
  O extends Storage | StorageDriver = Storage | StorageDriver,
> {
  /** Which seam it plugs into; `defineStorage` sets it. */
  readonly seam?: 'storage'
  /** The `kind` in config.json (`fs`, `sqlite`). */
  readonly kind: string
  /** One line for `--help` and error messages. */
  readonly description: string
  /** The options beside `kind` (every key optional: `{ "kind": "fs" }` must be valid). */
  readonly options: S
  /** Open the storage, or a driver the composition root wraps (`createStorage`); throws a FoundryError naming the option at fault. */
  open(options: Static<S>, site: AdapterSite): O | Promise<O>
  /**
   * `foundry doctor`: check the stored data without opening the storage, and with `fix` repair what
   * can be repaired without losing a record. Returns what it found and did (empty when healthy).
   */
  doctor?(options: Static<S>, site: AdapterSite, run: { fix: boolean }): DoctorFinding[] | Promise<DoctorFinding[]>
  /**
   * Several machines reach this storage (a database server), so no file beside the project is shared
   * by all who use it: the project's team data (its tokens) then lives in the storage. Default false.
   */
  readonly networked?: boolean
  /**
   * A job queue can live beside this storage (PostgreSQL: in the same database): the URL a queue
   * connects to, for options `open` accepted. Absent, or undefined, when the storage cannot host one.
   */
  queueUrl?(options: Static<S>, site: AdapterSite): string | undefined
}

/**
 * One thing `foundry doctor` found: `problem` needs fixing (exit 1), `fixed` was repaired,
 * `unfixable` needs a person, `note` is information only (a live lock holder, a passing check).
 */
export interface DoctorFinding {
  status: 'problem' | 'fixed' | 'unfixable' | 'note'
  /** What was checked: `lock`, `temp`, `cache`, `snapshot`, `fact`, `index`, `integrity`. */
  check: string
  /** The file or folder concerned, when there is one. */
  path?: string
  /** One line: what was found, and what was done or should be done. */
  message: string
}

/** How a retriever plugs in: `"retrieval": { "kind", …options }`. It may share the storage's file. */
export interface RetrieverDescriptor<S extends TSchema = TSchema> {
  /** Which seam it plugs into; `defineRetriever` sets it. */
  readonly seam?: 'retrieval'
  readonly kind: string
  readonly description: string
  readonly options: S
  /** `storage` is the project's storage as configured, for a retriever that keeps its index beside it. */
  open(
    options: Static<S>,
    site: AdapterSite & { storage: { kind: string; options: Record<string, unknown> } },
  ): Retriever | Promise<Retriever>
}

/** Declare a storage descriptor with its options typed from the schema. */
export function defineStorage<S extends TSchema, O extends Storage | StorageDriver>(
  descriptor: StorageDescriptor<S, O>,
): StorageDescriptor<S, O> {
  return { ...descriptor, seam: 'storage' }
}

/** Declare a retriever descriptor with its options typed from the schema. */
export function defineRetriever<S extends TSchema>(descriptor: RetrieverDescriptor<S>): RetrieverDescriptor<S> {
  return { ...descriptor, seam: 'retrieval' }
}
