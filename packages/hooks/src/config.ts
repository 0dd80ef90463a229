import { readFile } from 'node:fs/promises'
import { isAbsolute, join } from 'node:path'
import { cacheFile, fsStorage } from '@foundry/adapter-fs'
import { createKernel, FoundryError, parseConfig, type Config, type Kernel, type Retriever, type Storage } from '@foundry/kernel'
import { DATA_FOLDER } from './locate.js'

/**
 * The hooks' composition root: it reads a project's `.foundry/config.json` (locate.ts finds the
 * project) and chooses the adapters exactly as the `foundry` CLI does (packages/mcp/src/config.ts).
 * It is its own file rather than an import of `@foundry/mcp/config` because `@foundry/mcp` depends
 * on this package (for `foundry validate-assets` and the hook server), and a hook must not pay for
 * loading anything it does not run.
 */

export const CONFIG_FILE = join(DATA_FOLDER, 'config.json')

/** What a hook works with: an open project. The MCP server's `Project` has this shape too. */
export interface ProjectContext {
  /** Absolute. */
  root: string
  config: Config
  kernel: Kernel
}

export interface HookProject extends ProjectContext {
  /** Persist what the retriever deferred and release the storage. Idempotent. */
  close(): Promise<void>
}

export interface OpenOptions {
  /** The clock (tests pin it). */
  now?: () => Date
}

/** `.foundry/config.json` resolved; the defaults when the file is absent. Throws INVALID_INPUT naming the file and the key. */
export async function readConfig(root: string): Promise<Config> {
  const file = join(root, CONFIG_FILE)
  let text: string | undefined
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new FoundryError('UNAVAILABLE', `Cannot read ${file}: ${(error as Error).message}`, { cause: error })
  }
  return parseConfig(text, file)
}

/**
 * Compose the kernel over the project at `root` with the storage and retriever its configuration
 * names. The SQLite adapter (and its native module) loads only when the configuration asks for it.
 * Telemetry goes to the storage's event log; the kernel swallows its failures.
 */
export async function openProject(root: string, options: OpenOptions = {}): Promise<HookProject> {
  const config = await readConfig(root)
  const storage = await openStorage(root, config)
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
    ...(options.now && { now: options.now }),
  })
  let closing: Promise<void> | undefined
  return { root, config, kernel, close: () => (closing ??= kernel.close()) }
}

async function openStorage(root: string, config: Config): Promise<Storage> {
  if (config.storage === 'fs') return fsStorage({ root })
  const { sqliteStorage } = await import('@foundry/adapter-sqlite')
  return sqliteStorage({ path: sqlitePath(root, config) })
}

/** `undefined` for MiniSearch (the kernel's default, opened lazily from its snapshot); FTS5 in the SQLite file, or in the cache beside the folder layout (as the CLI does). */
async function openRetriever(root: string, config: Config): Promise<Retriever | undefined> {
  if (config.retrieval === 'minisearch') return undefined
  const { ftsRetriever } = await import('@foundry/adapter-sqlite')
  return ftsRetriever({ path: config.storage === 'sqlite' ? sqlitePath(root, config) : cacheFile(root, 'fts.db') })
}

function sqlitePath(root: string, config: Config): string {
  return isAbsolute(config.sqlite.path) ? config.sqlite.path : join(root, config.sqlite.path)
}
