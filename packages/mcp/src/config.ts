import { readFile } from 'node:fs/promises'
import { isAbsolute, join, resolve } from 'node:path'
import { cacheFile, fsStorage } from '@foundry/adapter-fs'
import { createKernel, FoundryError, parseConfig, type Config, type Kernel, type Retriever, type Storage, type StorageProblem } from '@foundry/kernel'

/**
 * The composition root of the foundry CLI and MCP server (and of anything else that opens a project
 * the way they do, such as the hooks): it reads `.foundry/config.json` and chooses the adapters.
 * Nothing else in these packages names an adapter.
 */

export type StorageKind = Config['storage']
export type RetrievalKind = Config['retrieval']

/** Where the configuration lives, relative to the project root. */
export const CONFIG_FILE = '.foundry/config.json'

export interface OpenProjectOptions {
  /** The project root: `.foundry/` lives directly under it. */
  root: string
  /** Overrides `storage` of config.json. */
  storage?: StorageKind
  /** Overrides `retrieval` of config.json. */
  retrieval?: RetrievalKind
  /** Called once for each record that exists but cannot be read. Default: kept in `kernel.problems`. */
  onProblem?: (problem: StorageProblem) => void
  /** The clock (tests pin it). */
  now?: () => Date
}

export interface Project {
  /** Absolute. */
  root: string
  /** config.json resolved, overrides applied. */
  config: Config
  kernel: Kernel
  /** Persist what the retriever deferred and release the storage. Idempotent. */
  close(): Promise<void>
}

/**
 * `.foundry/config.json` of the project, resolved: a missing file gives the defaults; a file that is
 * not JSON, or breaks the schema, throws INVALID_INPUT naming the file and the key.
 */
export async function readConfig(root: string): Promise<Config> {
  const file = join(resolve(root), CONFIG_FILE)
  let text: string | undefined
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new FoundryError('UNAVAILABLE', `Cannot read ${file}: ${(error as Error).message}`, { cause: error })
  }
  return parseConfig(text, file)
}

/**
 * A storage over the project at `root`: `fs` keeps the `.foundry/` folder layout; `sqlite` keeps one
 * file at `sqlite.path` (relative to the root). The SQLite adapter, and its native module, load only here.
 */
export async function openStorage(root: string, kind: StorageKind, config?: Config): Promise<Storage> {
  if (kind === 'fs') return fsStorage({ root: resolve(root) })
  const { sqliteStorage } = await import('@foundry/adapter-sqlite')
  return sqliteStorage({ path: sqlitePath(root, config ?? (await readConfig(root))) })
}

/** Read the configuration, open the storage and retriever it names, and compose the kernel over them. */
export async function openProject(options: OpenProjectOptions): Promise<Project> {
  const root = resolve(options.root)
  const file = await readConfig(root)
  const config: Config = { ...file, storage: options.storage ?? file.storage, retrieval: options.retrieval ?? file.retrieval }
  const storage = await openStorage(root, config.storage, config)
  let retriever: Retriever | undefined
  try {
    retriever = await openRetriever(root, config)
  } catch (error) {
    await storage.close?.()
    throw error
  }
  const kernel = createKernel({
    storage,
    ...(retriever && { retriever }),
    config,
    root,
    readFile: (path) => readFile(path, 'utf8'),
    ...(options.onProblem && { onProblem: options.onProblem }),
    ...(options.now && { now: options.now }),
  })
  let closing: Promise<void> | undefined
  return { root, config, kernel, close: () => (closing ??= kernel.close()) }
}

/**
 * `undefined` for MiniSearch (the kernel's default, snapshotted into the storage). FTS5 keeps its
 * index in the SQLite file of the storage, or beside the folder layout in `.foundry/cache/fts.db`
 * (cache/ is gitignored and safe to delete).
 */
async function openRetriever(root: string, config: Config): Promise<Retriever | undefined> {
  if (config.retrieval === 'minisearch') return undefined
  const { ftsRetriever } = await import('@foundry/adapter-sqlite')
  return ftsRetriever({ path: config.storage === 'sqlite' ? sqlitePath(root, config) : cacheFile(root, 'fts.db') })
}

function sqlitePath(root: string, config: Config): string {
  return isAbsolute(config.sqlite.path) ? config.sqlite.path : join(resolve(root), config.sqlite.path)
}
