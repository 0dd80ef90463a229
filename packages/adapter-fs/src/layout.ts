import { isAbsolute, join, resolve } from 'node:path'
import { COLLECTIONS, type CollectionName, type KernelCollection, type OpenCollection } from '@foundry/kernel/adapter'

/** The collections kept one file a record in one folder, and the extension of those files. */
const FLAT = {
  facts: { dir: join('memory', 'facts'), ext: '.md' },
  runbooks: { dir: 'runbooks', ext: '.md' },
  contracts: { dir: 'contracts', ext: '.json' },
} as const
type FlatCollection = keyof typeof FLAT

/** The meta key stored beside the facts as `memory/INDEX.md`; every other meta key is cache. */
export const INDEX_META_KEY = 'index'

/** The extension of the files of artifacts and open collections (JSON). */
export const JSON_EXT = '.json'
/** The extension of log files (one JSON string a line). */
export const LOG_EXT = '.jsonl'

/** A consumer's collection (`marbles.runs`); callers pass only names `assertCollection` accepted. */
export const isOpen = (collection: CollectionName): collection is OpenCollection =>
  !COLLECTIONS.includes(collection as KernelCollection)

/**
 * Where everything lives inside the data folder (`<root>/.foundry` by default):
 *
 * ```
 * memory/facts/<id>.md   memory/INDEX.md (meta `index`)   runbooks/<slug>.md   contracts/<id>.json
 * blackboard/<wave>/<agent>.json   data/<consumer>.<name>/<key>.json   metrics/events.jsonl   .gitignore
 * logs/<name>.jsonl   cache/meta/<key>   cache/<collection>.journal   cache/<collection>.records.json
 * cache/write.lock   (cache/, logs/ and metrics/ are gitignored)
 * ```
 *
 * Keys and log names map to paths one to one (slashes become folders); callers pass only keys
 * that `assertKey` accepted and log names that `assertLogName` accepted.
 */
export interface Layout {
  /** The data folder, absolute. */
  readonly base: string
  /** Derived state: meta blobs, change journals, the write lock. Safe to delete while no process runs. May lie outside `base`. */
  readonly cache: string
  readonly events: string
  readonly gitignore: string
  readonly lock: string
  /** The folder of every log. */
  readonly logs: string
  /** The folder holding each open collection's folder. */
  readonly data: string
  /** The file holding the named log. */
  log(name: string): string
  /** The file holding `key`. */
  file(collection: CollectionName, key: string): string
  /** The folder every file of the collection sits in or under. */
  folder(collection: CollectionName): string
  /**
   * The folder whose modification time stands for changes made by other means, or undefined (meta).
   * For an open collection it is the collection's folder: records added by hand in its sub-folders
   * go unnoticed there, like hand edits in place.
   */
  watched(collection: CollectionName): string | undefined
  journal(collection: CollectionName): string
  /** The parsed-record cache of a markdown collection (record-cache.ts). */
  records(collection: CollectionName): string
}

/** `cache`: the folder of derived state, relative to `root` or absolute; default `<data folder>/cache`. */
export function createLayout(root: string, folder = '.foundry', cacheFolder?: string): Layout {
  const base = isAbsolute(folder) ? resolve(folder) : resolve(root, folder)
  const cache = cacheFolder === undefined ? join(base, 'cache') : resolve(root, cacheFolder)
  const metaDir = join(cache, 'meta')
  const data = join(base, 'data')
  const logs = join(base, 'logs')

  const folderOf = (collection: CollectionName): string => {
    if (collection === 'artifacts') return join(base, 'blackboard')
    if (collection === 'meta') return metaDir
    if (isOpen(collection)) return join(data, collection)
    return join(base, FLAT[collection].dir)
  }

  return {
    base,
    cache,
    events: join(base, 'metrics', 'events.jsonl'),
    gitignore: join(base, '.gitignore'),
    lock: join(cache, 'write.lock'),
    logs,
    data,
    log: (name) => join(logs, ...name.split('/')) + LOG_EXT,
    folder: folderOf,
    file(collection, key) {
      if (collection === 'meta')
        return key === INDEX_META_KEY ? join(base, 'memory', 'INDEX.md') : join(metaDir, ...key.split('/'))
      if (collection === 'artifacts' || isOpen(collection))
        return join(folderOf(collection), ...key.split('/')) + JSON_EXT
      return join(folderOf(collection), key + FLAT[collection].ext)
    },
    watched: (collection) => (collection === 'meta' ? undefined : folderOf(collection)),
    journal: (collection) => join(cache, `${collection}.journal`),
    records: (collection) => join(cache, `${collection}.records.json`),
  }
}

/** The key a file name in a flat collection's folder stands for, or undefined when it is not a record file. */
export function flatKey(collection: FlatCollection, name: string): string | undefined {
  const { ext } = FLAT[collection]
  return name.endsWith(ext) && name.length > ext.length ? name.slice(0, -ext.length) : undefined
}

export const isFlat = (collection: CollectionName): collection is FlatCollection => Object.hasOwn(FLAT, collection)
