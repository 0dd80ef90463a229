import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { FoundryError, resolveConfig, type Config } from '@foundry/kernel'
import { CONFIG_FILE } from './find.js'
import { tracingOf, type TracingConfig } from './tracing.js'

/** An adapter as config.json names it: `{ "kind": "sqlite", "path": "data/memory.db" }` read as `{ kind, options }`. */
export interface AdapterChoice {
  kind: string
  /** Every key beside `kind`; validated by the adapter's own schema when the project opens. */
  options: Record<string, unknown>
}

/** How a caller overrides an adapter of config.json: a kind (keeping the file's options when it names the same kind), or `{ kind, …options }`. */
export type AdapterOverride = string | ({ kind: string } & Record<string, unknown>)

/** `.foundry/config.json`, read and split between the composition root and the kernel. */
export interface ProjectConfig {
  /** The file, absolute. */
  file: string
  /** False when there is no config.json (every default). */
  exists: boolean
  /** `storage`; default `{ kind: 'fs' }`. */
  storage: AdapterChoice
  /** `retrieval`; default `{ kind: 'bm25' }`, on PostgreSQL `{ kind: 'bm25', analysis: 'english', ranking: 'postgres' }`. */
  retrieval: AdapterChoice
  /** `adapters`: modules registering more adapters, as written (paths are relative to the project root). */
  adapters: string[]
  /** `tracing`: where Marbles sends its spans; `{}` when absent. */
  tracing: TracingConfig
  /** `marbles`: Marbles' own keys, as written (Marbles checks them with its schema). Default `{}`. */
  marbles: Record<string, unknown>
  /** Every other key, resolved by the kernel (defaults, then the profile, then the file). */
  config: Config
  /** True when the file uses the old shape (`"storage": "sqlite"`, `"retrieval": "fts"`, `"sqlite": { "path" }`). */
  legacy: boolean
  /** The file's contents in the current shape, keys in their order: what `initProject` writes over a legacy file. */
  normalized: Record<string, unknown>
}

export const DEFAULT_STORAGE = 'fs'
export const DEFAULT_RETRIEVAL = 'bm25'

/**
 * The retrieval of a project whose config.json names none, by storage kind (any other: `bm25` as is).
 * PostgreSQL: bm25 in process ranked as the Postgres retriever ranks, on PostgreSQL's english
 * lexemes: that retriever's hits and quality, without a database round trip a search (README).
 */
const STORAGE_RETRIEVALS: Readonly<Record<string, Record<string, unknown>>> = {
  postgres: { analysis: 'english', ranking: 'postgres' },
}

/**
 * Read `<root>/.foundry/config.json`: a missing file gives the defaults; a file that is not JSON, or
 * breaks a key's shape, throws INVALID_INPUT naming the file and the key. Adapter options are not
 * checked here (that needs the adapter's descriptor): `openProject` checks them.
 */
export async function readProjectConfig(root: string): Promise<ProjectConfig> {
  const file = join(resolve(root), CONFIG_FILE)
  let text: string | undefined
  try {
    // Read synchronously (a small file): through the thread pool, a new process first starts its threads
    // and then waits for one to be scheduled, four times (open, stat, read, close), 9–50 ms at load ~10.
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new FoundryError('UNAVAILABLE', `Cannot read ${file}: ${(error as Error).message}`, { cause: error })
  }
  return parseProjectConfig(text, file)
}

/** The text of a config.json (`undefined`: no file) read as `readProjectConfig` does. */
export function parseProjectConfig(text: string | undefined, file: string): ProjectConfig {
  if (text === undefined) {
    return {
      file,
      exists: false,
      storage: { kind: DEFAULT_STORAGE, options: {} },
      retrieval: { kind: DEFAULT_RETRIEVAL, options: {} },
      adapters: [],
      tracing: {},
      marbles: {},
      config: resolveConfig(undefined, file),
      legacy: false,
      normalized: {},
    }
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (error) {
    throw new FoundryError('INVALID_INPUT', `Invalid ${file}: not JSON (${(error as Error).message})`, { cause: error })
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new FoundryError('INVALID_INPUT', `Invalid ${file}: must be a JSON object ({ "storage": { "kind": "fs" } })`)
  const { storage, retrieval, sqlite, adapters, tracing, marbles = {}, ...kernelKeys } = raw as Record<string, unknown>
  if (typeof marbles !== 'object' || marbles === null || Array.isArray(marbles))
    throw new FoundryError(
      'INVALID_INPUT',
      `Invalid ${file}: marbles must be an object ({ "concurrency": 8, "retention": "30d" })`,
    )
  const config = resolveConfig(kernelKeys, file)
  const chosenStorage = choice(storage, 'storage', DEFAULT_STORAGE, file)
  const chosenRetrieval =
    retrieval === undefined
      ? { kind: DEFAULT_RETRIEVAL, options: { ...STORAGE_RETRIEVALS[chosenStorage.kind] } }
      : choice(retrieval, 'retrieval', DEFAULT_RETRIEVAL, file)
  // The old `"sqlite": { "path" }` names the file of the sqlite storage (and is meaningless for any other).
  if (sqlite !== undefined) {
    if (
      typeof sqlite !== 'object' ||
      sqlite === null ||
      Array.isArray(sqlite) ||
      !isOptionalString((sqlite as { path?: unknown }).path)
    )
      throw new FoundryError(
        'INVALID_INPUT',
        `Invalid ${file}: sqlite must be { "path": "<file>" } (better: "storage": { "kind": "sqlite", "path": "<file>" })`,
      )
    const { path } = sqlite as { path?: string }
    if (chosenStorage.kind === 'sqlite' && path !== undefined && chosenStorage.options.path === undefined)
      chosenStorage.options = { ...chosenStorage.options, path }
  }
  const normalized: Record<string, unknown> = {}
  for (const key of Object.keys(raw)) {
    if (key === 'storage') normalized.storage = { kind: chosenStorage.kind, ...chosenStorage.options }
    else if (key === 'retrieval') normalized.retrieval = { kind: chosenRetrieval.kind, ...chosenRetrieval.options }
    else if (key !== 'sqlite') normalized[key] = (raw as Record<string, unknown>)[key] // its path moved into storage
  }
  return {
    file,
    exists: true,
    storage: chosenStorage,
    retrieval: chosenRetrieval,
    adapters: adapterList(adapters, file),
    tracing: tracingOf(tracing, file),
    marbles: marbles as Record<string, unknown>,
    config,
    legacy: typeof storage === 'string' || typeof retrieval === 'string' || sqlite !== undefined,
    normalized,
  }
}

/** Apply an override (`--storage sqlite`) to what the file chose. */
export function override(chosen: AdapterChoice, by: AdapterOverride | undefined): AdapterChoice {
  if (by === undefined) return chosen
  if (typeof by === 'string') return by === chosen.kind ? chosen : { kind: by, options: {} }
  const { kind, ...options } = by
  return { kind, options }
}

/** `"fs"` (the old shape) or `{ "kind": "fs", …options }`; `undefined` is the default kind. */
function choice(value: unknown, key: string, fallback: string, file: string): AdapterChoice {
  if (value === undefined) return { kind: fallback, options: {} }
  if (typeof value === 'string' && value) return { kind: value, options: {} }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { kind, ...options } = value as Record<string, unknown>
    if (typeof kind === 'string' && kind) return { kind, options }
  }
  throw new FoundryError(
    'INVALID_INPUT',
    `Invalid ${file}: ${key} must be { "kind": "<adapter>", …options } (e.g. { "kind": "${fallback}" }), got ${JSON.stringify(value)}`,
  )
}

function adapterList(value: unknown, file: string): string[] {
  if (value === undefined) return []
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' && v.trim())) return value as string[]
  throw new FoundryError(
    'INVALID_INPUT',
    `Invalid ${file}: adapters must be a list of module paths (relative to the project root) or package names, e.g. ["./my-storage.mjs"]`,
  )
}

function isOptionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string'
}
