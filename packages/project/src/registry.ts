import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bm25Descriptor, FoundryError, validator } from '@foundry/kernel'
import type { RetrieverDescriptor, StorageDescriptor } from '@foundry/kernel/adapter'
import type { AdapterChoice } from './config.js'

type Load<D> = () => Promise<D>

/**
 * The built-in adapters, one line each. Each adapter package exports its descriptor; a package loads
 * only when a project's config.json names one of its kinds (a project on the folder layout never
 * loads SQLite or its native module). A third party registers through config.json's `"adapters"`.
 */
export const BUILTIN_STORAGES: Readonly<Record<string, Load<StorageDescriptor>>> = {
  fs: async () => (await import('@foundry/adapter-fs')).fsDescriptor,
  sqlite: async () => (await sqliteAdapter('storage "sqlite"')).sqliteDescriptor,
  postgres: async () => (await import('@foundry/adapter-postgres')).postgresDescriptor,
}

export const BUILTIN_RETRIEVERS: Readonly<Record<string, Load<RetrieverDescriptor>>> = {
  bm25: async () => bm25Descriptor,
  minisearch: async () => (await import('@foundry/retriever-minisearch')).minisearchDescriptor,
  fts: async () => (await sqliteAdapter('retrieval "fts"')).ftsDescriptor,
  postgres: async () => (await import('@foundry/adapter-postgres')).postgresRetrieverDescriptor,
}

/** A built-in storage a bare location names: its site root, the options to open it with, and the path when it is local. */
export interface TargetMatch {
  root: string
  options: Record<string, unknown>
  /** The location resolved, when it is local (a URL is never repeated: it may hold a password). */
  path?: string
}

/** Which storage kind a bare location (`marbles --state PATH|URL`) names, decided without loading its adapter. */
export interface StorageTarget {
  kind: string
  /** What it is, for messages: `PostgreSQL`, `SQLite`, `folder`. */
  title: string
  /** The match, or undefined when the location is not of this kind. */
  matches(target: string): TargetMatch | undefined
}

/**
 * The built-in storages' locations, asked in order: a `postgres://` URL, a `.db`/`.sqlite`/`.sqlite3`
 * file, else a folder (the folder layout, kept in the folder itself).
 */
export const STORAGE_TARGETS: readonly StorageTarget[] = [
  {
    kind: 'postgres',
    title: 'PostgreSQL',
    matches: (target) =>
      /^postgres(ql)?:\/\//.test(target) ? { root: process.cwd(), options: { url: target } } : undefined,
  },
  {
    kind: 'sqlite',
    title: 'SQLite',
    matches(target) {
      const path = resolve(target)
      return /\.(db|sqlite3?)$/.test(path) ? { root: dirname(path), options: { path }, path } : undefined
    },
  },
  {
    kind: 'fs',
    title: 'folder',
    matches: (target) => ({ root: resolve(target), options: { folder: resolve(target) }, path: resolve(target) }),
  },
]

/**
 * `@foundry/adapter-sqlite`, whose native better-sqlite3 is an optional dependency: without it, one
 * line (UNAVAILABLE) saying how to install it.
 */
async function sqliteAdapter(what: string): Promise<typeof import('@foundry/adapter-sqlite')> {
  try {
    return await import('@foundry/adapter-sqlite')
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string }
    if (
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      /['"]better-sqlite3['"]/.test(message ?? '')
    )
      throw new FoundryError(
        'UNAVAILABLE',
        `${what} needs better-sqlite3, which is not installed: run \`npm install better-sqlite3\` beside Foundry (it builds a native module: python3, make and a C++ compiler when no prebuilt binary fits), or use storage "fs" with retrieval "minisearch"`,
        { cause: error },
      )
    throw error
  }
}

/** The adapters a project can name: the built-in ones, and those its `"adapters"` modules export. */
export interface Registry {
  storages: ReadonlyMap<string, Load<StorageDescriptor>>
  retrievers: ReadonlyMap<string, Load<RetrieverDescriptor>>
  /** Descriptors from `"adapters"` modules, by kind, with the module they came from (for messages). */
  external: ReadonlyMap<string, { descriptor: StorageDescriptor | RetrieverDescriptor; from: string }>
}

/** The built-in registry. */
export function builtinRegistry(): Registry {
  return {
    storages: new Map(Object.entries(BUILTIN_STORAGES)),
    retrievers: new Map(Object.entries(BUILTIN_RETRIEVERS)),
    external: new Map(),
  }
}

/**
 * The registry with the descriptors exported by `modules` added: each a path relative to `root`
 * (`./adapters/json-file.mjs`) or a package name resolved from `root`. Every export shaped like a
 * descriptor (`kind`, `options`, `open`) is registered by its kind, for the seam config.json names
 * it in; `openProject` checks that what it opens is a storage or a retriever. A kind that is already
 * registered is refused (CONFLICT), so a module never silently replaces a built-in adapter.
 */
export async function withAdapterModules(
  base: Registry,
  modules: readonly string[],
  root: string,
  file: string,
): Promise<Registry> {
  if (!modules.length) return base
  const external = new Map(base.external)
  for (const spec of modules) {
    let exports: Record<string, unknown>
    try {
      exports = (await import(moduleUrl(spec, root))) as Record<string, unknown>
    } catch (error) {
      throw new FoundryError(
        'INVALID_INPUT',
        `Invalid ${file}: adapters: cannot load "${spec}" from ${root}: ${(error as Error).message.split('\n')[0]}`,
        { cause: error },
      )
    }
    const found = Object.values(exports).filter(isDescriptor)
    if (!found.length)
      throw new FoundryError(
        'INVALID_INPUT',
        `Invalid ${file}: adapters: "${spec}" exports no adapter descriptor (defineStorage or defineRetriever of @foundry/kernel)`,
      )
    for (const descriptor of new Set(found)) {
      const taken =
        base.storages.has(descriptor.kind) || base.retrievers.has(descriptor.kind)
          ? 'a built-in adapter'
          : external.get(descriptor.kind)?.from
      if (taken)
        throw new FoundryError(
          'CONFLICT',
          `Invalid ${file}: adapters: "${spec}" registers kind "${descriptor.kind}", already registered by ${taken}; rename its kind`,
        )
      external.set(descriptor.kind, { descriptor, from: spec })
    }
  }
  return { ...base, external }
}

/** The kinds a project can name for `storage` (or `retrieval`), for messages. */
export function installedKinds(registry: Registry, seam: 'storage' | 'retrieval'): string[] {
  const external = [...registry.external]
    .filter(([, { descriptor }]) => fitsSeam(descriptor, seam))
    .map(([kind]) => kind)
  return [...(seam === 'storage' ? registry.storages : registry.retrievers).keys(), ...external]
}

/** A descriptor made with `defineStorage` / `defineRetriever` names its seam; a hand-made one fits either (what it opens is checked). */
const fitsSeam = (descriptor: StorageDescriptor | RetrieverDescriptor, seam: 'storage' | 'retrieval') =>
  descriptor.seam === undefined || descriptor.seam === seam

/** A descriptor found for a seam, and the choice with its options as validated. */
export type Resolved<D> = { descriptor: D; choice: AdapterChoice }

/**
 * The descriptor of `choice.kind` for `seam` (INVALID_INPUT naming the installed kinds when there is
 * none), and its options validated by the descriptor's own schema (`Invalid storage in <file>: …`).
 */
export async function resolveAdapter(
  registry: Registry,
  seam: 'storage',
  choice: AdapterChoice,
  file: string,
): Promise<Resolved<StorageDescriptor>>
export async function resolveAdapter(
  registry: Registry,
  seam: 'retrieval',
  choice: AdapterChoice,
  file: string,
): Promise<Resolved<RetrieverDescriptor>>
export async function resolveAdapter(
  registry: Registry,
  seam: 'storage' | 'retrieval',
  choice: AdapterChoice,
  file: string,
): Promise<Resolved<StorageDescriptor | RetrieverDescriptor>> {
  const builtin = (seam === 'storage' ? registry.storages : registry.retrievers).get(choice.kind)
  const external = registry.external.get(choice.kind)?.descriptor
  const descriptor = builtin ? await builtin() : external && fitsSeam(external, seam) ? external : undefined
  if (!descriptor)
    throw new FoundryError(
      'INVALID_INPUT',
      `Invalid ${file}: ${seam} kind "${choice.kind}" is not installed; installed: ${installedKinds(registry, seam).join(', ')} (register another in "adapters")`,
    )
  const options = validator(descriptor.options).parse(choice.options, `${seam} in ${file}`) as Record<string, unknown>
  return { descriptor, choice: { kind: choice.kind, options } }
}

function moduleUrl(spec: string, root: string): string {
  if (spec.startsWith('.') || isAbsolute(spec)) return pathToFileURL(resolve(root, spec)).href
  // A package name, resolved as if imported from a file at the project root.
  return pathToFileURL(createRequire(join(root, 'package.json')).resolve(spec)).href
}

function isDescriptor(value: unknown): value is StorageDescriptor | RetrieverDescriptor {
  if (typeof value !== 'object' || value === null) return false
  const d = value as Partial<StorageDescriptor>
  return (
    typeof d.kind === 'string' &&
    d.kind !== '' &&
    typeof d.open === 'function' &&
    typeof d.options === 'object' &&
    d.options !== null
  )
}
