import { join, resolve } from 'node:path'
import { createStorage, missingDriverMembers, type StorageDriver } from '@foundry/kernel/adapter'
import { createKernel, FoundryError, type Config, type Kernel, type Retriever, type Storage } from '@foundry/kernel'
import { readContainedFile } from './contained-file.js'
import { override, readProjectConfig, type AdapterChoice, type AdapterOverride, type ProjectConfig } from './config.js'
import { DATA_FOLDER, type FindOptions } from './find.js'
import { locateProject } from './locate.js'
import { tracesUrl } from './tracing.js'
import { builtinRegistry, resolveAdapter, STORAGE_TARGETS, withAdapterModules, type Registry } from './registry.js'

type KernelOptions = Parameters<typeof createKernel>[0]

export interface OpenProjectOptions extends FindOptions {
  /** Replace config.json's adapters (the CLI's `--storage`): a kind keeps the file's options when it is the same kind. */
  overrides?: { storage?: AdapterOverride; retrieval?: AdapterOverride }
  /** The clock (tests pin it). */
  now?: () => Date
  /** Called once for each record that exists but cannot be read. */
  onProblem?: KernelOptions['onProblem']
  /** Anything else the kernel takes (its plugins, say); the storage, retriever, config and root are the project's. */
  kernel?: Omit<KernelOptions, 'storage' | 'retriever' | 'config' | 'root'>
}

/** What a consumer works with: an open project (a hook handler, the hook server). */
export interface ProjectContext {
  /** Absolute. */
  root: string
  /** The kernel's configuration, resolved from config.json. */
  config: Config
  kernel: Kernel
}

export interface Project extends ProjectContext {
  /** `<root>/.foundry`, absolute: where config.json lives. */
  dataDir: string
  /** The adapters config.json chose (overrides applied), with their options as validated. */
  adapters: { storage: AdapterChoice; retrieval: AdapterChoice }
  /** The open storage, for a consumer's own collections and logs, and for copies (`foundry export`). */
  storage: Storage
  /** Where a job queue can live beside the storage (its descriptor's `queueUrl`: PostgreSQL's database); absent when it cannot. */
  queueUrl?: string
  /** Where run spans go (OTLP/HTTP traces URL: config.json's `tracing`, else the standard OTEL_EXPORTER_OTLP_* variables); absent: tracing off. */
  tracesUrl?: string
  /** config.json's `marbles` keys, as written: Marbles checks them. */
  marbles: Record<string, unknown>
  /** The storage is reached by several machines (its descriptor's `networked`): team data, such as tokens, lives in it. */
  networked?: boolean
  /** Persist what the retriever deferred and release the storage. Idempotent. */
  close(): Promise<void>
}

/**
 * Open the project `options` names (`root`, else `FOUNDRY_ROOT`, else the nearest `.foundry/` at or
 * above `cwd`; NOT_FOUND when there is none, and nothing is created): read config.json, open the
 * storage and the retriever it names through the registry, and compose the kernel over them.
 */
export async function openProject(options: OpenProjectOptions = {}): Promise<Project> {
  const root = locateProject(options)
  const dataDir = join(root, DATA_FOLDER)
  const file = await readProjectConfig(root)
  const registry = await withAdapterModules(builtinRegistry(), file.adapters, root, file.file)
  const storage = await resolveAdapter(registry, 'storage', sameStorage(file, options.overrides?.storage), file.file)
  const retrieval = await resolveAdapter(
    registry,
    'retrieval',
    override(file.retrieval, options.overrides?.retrieval),
    file.file,
  )
  const site = { root, dataDir }

  const store = checked(await storage.descriptor.open(storage.choice.options, site), 'storage', storage.choice.kind)
  let retriever: Retriever
  try {
    retriever = checked(
      await retrieval.descriptor.open(retrieval.choice.options, { ...site, storage: storage.choice }),
      'retrieval',
      retrieval.choice.kind,
    )
  } catch (error) {
    await store.close?.()
    throw error
  }
  const kernel = createKernel({
    ...options.kernel,
    storage: store,
    retriever,
    config: file.config,
    root,
    readFile: options.kernel?.readFile ?? ((path) => readContainedFile(root, path)),
    ...(options.onProblem && { onProblem: options.onProblem }),
    ...(options.now && { now: options.now }),
  })
  let closing: Promise<void> | undefined
  const queueUrl = storage.descriptor.queueUrl?.(storage.choice.options, site)
  const traces = tracesUrl(file.tracing)
  return {
    root,
    dataDir,
    config: kernel.config,
    adapters: { storage: storage.choice, retrieval: retrieval.choice },
    storage: store,
    ...(queueUrl && { queueUrl }),
    ...(traces && { tracesUrl: traces }),
    marbles: file.marbles,
    ...(storage.descriptor.networked && { networked: true }),
    kernel,
    close: () => (closing ??= kernel.close()),
  }
}

/**
 * The project's storage with an override applied, which may change its options but never its kind:
 * opening another kind than the one the project keeps its data in would quietly start a second,
 * empty memory beside it (a `--storage sqlite` on a folder project writing to a new foundry.db).
 */
export function sameStorage(file: ProjectConfig, wanted: AdapterOverride | undefined): AdapterChoice {
  const chosen = override(file.storage, wanted)
  if (chosen.kind !== file.storage.kind)
    throw new FoundryError(
      'CONFLICT',
      `The project keeps its data in storage "${file.storage.kind}" (${file.exists ? file.file : 'the default: no config.json'}), not "${chosen.kind}": drop the storage override; to move the data, foundry export <dir> from it and foundry import <dir> into a project made with foundry init --storage ${chosen.kind}`,
    )
  return chosen
}

/**
 * A storage of `choice` (default the folder layout) over `root`, outside any project: what
 * `foundry export` and `foundry import` copy through. It creates its data as it writes.
 */
export async function openStorage(
  root: string,
  choice: AdapterOverride = 'fs',
  registry: Registry = builtinRegistry(),
): Promise<Storage> {
  return (await openChoice(root, choice, registry)).storage
}

/** A storage a bare location names, opened outside any project, with what it offers. */
export interface OpenedTarget {
  storage: Storage
  /** What the location is, for messages: `PostgreSQL`, `SQLite`, `folder`. */
  title: string
  /** The location resolved, when it is local (a URL is never repeated: it may hold a password). */
  path: string | undefined
  /** Where a job queue can live beside the storage (its descriptor's `queueUrl`), or undefined. */
  queueUrl: string | undefined
}

/**
 * Open the storage a bare location names (`marbles --state PATH|URL`): the first of the built-in
 * `STORAGE_TARGETS` that matches it (a `postgres://` URL, a `.db` or `.sqlite` file, else a folder).
 */
export async function openTarget(target: string, registry: Registry = builtinRegistry()): Promise<OpenedTarget> {
  const [kind, match] = STORAGE_TARGETS.map((t) => [t, t.matches(target)] as const).find(([, m]) => m) ?? []
  if (!kind || !match)
    throw new FoundryError(
      'INVALID_INPUT',
      `No storage matches the location ${JSON.stringify(target)}: give a folder, a .db file or a postgres:// URL`,
    )
  const { storage, descriptor, options, site } = await openChoice(
    match.root,
    { kind: kind.kind, ...match.options },
    registry,
  )
  return { storage, title: kind.title, path: match.path, queueUrl: descriptor.queueUrl?.(options, site) }
}

async function openChoice(root: string, choice: AdapterOverride, registry: Registry) {
  const dir = resolve(root)
  const picked = override({ kind: '', options: {} }, choice)
  const { descriptor, choice: valid } = await resolveAdapter(registry, 'storage', picked, 'the storage options')
  const site = { root: dir, dataDir: join(dir, DATA_FOLDER) }
  return {
    storage: checked(await descriptor.open(valid.options, site), 'storage', valid.kind),
    descriptor,
    options: valid.options,
    site,
  }
}

/**
 * What a descriptor opened, checked for the seam it was named in (an `"adapters"` module's descriptor
 * could be either). A storage descriptor may open a whole `Storage` or a `StorageDriver`, which the
 * kernel's `createStorage` wraps.
 */
function checked<T extends Storage | Retriever>(
  opened: T | StorageDriver,
  seam: 'storage' | 'retrieval',
  kind: string,
): T {
  const has = (...names: string[]) =>
    names.every((n) => typeof (opened as unknown as Record<string, unknown>)?.[n] === 'function')
  if (seam === 'storage' && !has('appendEvent')) {
    // Not a whole Storage: a StorageDriver, which the kernel wraps, or not a storage at all.
    if (missingDriverMembers(opened).length === 0) return createStorage(opened as StorageDriver) as T
  } else if (
    seam === 'storage'
      ? has('get', 'put', 'list', 'exclusive', 'revision') && typeof (opened as Storage).flags === 'object'
      : has('revision', 'apply', 'search')
  ) {
    return opened as T
  }
  throw new FoundryError(
    'INVALID_INPUT',
    `Adapter "${kind}" is not a ${seam === 'storage' ? 'Storage' : 'Retriever'}: name it in "${seam === 'storage' ? 'retrieval' : 'storage'}", or fix its open()`,
  )
}
