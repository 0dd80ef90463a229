import { join } from 'node:path'
import { defineRetriever, defineStorage, type AdapterSite } from '@foundry/kernel/adapter'
import { configuredPath, insideAfterLinks } from './contain.js'
import { inspectDatabase } from './doctor.js'
import { ftsRetriever } from './fts-retriever.js'
import { sqliteStorage } from './sqlite-storage.js'

/** The options of `"storage": { "kind": "sqlite", … }` in `.foundry/config.json`. */
export interface SqliteDescriptorOptions {
  /** The SQLite file: relative to the project root and inside it (links included), or absolute (anywhere, on purpose). Default `.foundry/foundry.db`. */
  path?: string
  /** Milliseconds a write waits for another process's write before UNAVAILABLE. Default 10 000. */
  timeout?: number
}

/** The options of `"retrieval": { "kind": "fts", … }`. */
export interface FtsDescriptorOptions {
  /** The index file, relative to the project root or absolute. Default: the storage's SQLite file, else `<dataDir>/cache/fts.db`. */
  path?: string
  /** See `FtsRetrieverOptions`. */
  prefixMinLength?: number
  fuzzy?: number
  weights?: { title?: number; tags?: number; body?: number }
}

/** Where the SQLite file of a project lives when `path` is not given. */
export const DEFAULT_SQLITE_PATH = '.foundry/foundry.db'

// JSON Schema as plain objects: the kernel's validator compiles them, and nothing here loads TypeBox.
const path = { type: 'string', minLength: 1 } as const
const weight = { type: 'number', minimum: 0 } as const

const SqliteDescriptorOptionsSchema = {
  type: 'object',
  properties: {
    path: {
      ...path,
      description: `The SQLite file, relative to the project root or absolute. Default ${DEFAULT_SQLITE_PATH}`,
    },
    timeout: {
      type: 'integer',
      minimum: 0,
      description: 'Milliseconds a write waits for another process. Default 10000',
    },
  },
  additionalProperties: false,
} as const

const FtsDescriptorOptionsSchema = {
  type: 'object',
  properties: {
    path: { ...path, description: 'The index file. Default: the storage SQLite file, else <dataDir>/cache/fts.db' },
    prefixMinLength: {
      type: 'integer',
      minimum: 0,
      maximum: 50,
      description: 'Prefix-match unknown query words this long or longer; 0 turns it off',
    },
    fuzzy: {
      type: 'number',
      minimum: 0,
      maximum: 0.5,
      description: 'Edit distance for unknown words, as a fraction of their length; 0 turns it off',
    },
    weights: {
      type: 'object',
      properties: { title: weight, tags: weight, body: weight },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
} as const

/** `"storage": { "kind": "sqlite" }`: every record in one SQLite file (WAL). */
export const sqliteDescriptor = defineStorage({
  kind: 'sqlite',
  description: `every record in one SQLite file (default ${DEFAULT_SQLITE_PATH})`,
  options: SqliteDescriptorOptionsSchema,
  open: (options: SqliteDescriptorOptions, site) => sqliteStorage({ ...options, path: sqliteFile(options, site) }),
  doctor: (options: SqliteDescriptorOptions, site) => inspectDatabase(sqliteFile(options, site)),
})

/** `"retrieval": { "kind": "fts" }`: FTS5 in the storage's SQLite file, or beside the folder layout in `cache/fts.db`. */
export const ftsDescriptor = defineRetriever({
  kind: 'fts',
  description:
    'SQLite FTS5 keyword retrieval, in the storage file when the storage is sqlite, else in <dataDir>/cache/fts.db',
  options: FtsDescriptorOptionsSchema,
  open: ({ path: file, ...options }: FtsDescriptorOptions, site) =>
    ftsRetriever({
      ...options,
      path: file
        ? configuredPath('retrieval.path', file, site.root)
        : site.storage.kind === 'sqlite'
          ? sqliteFile(site.storage.options as SqliteDescriptorOptions, site)
          : insideAfterLinks(join(site.dataDir, 'cache', 'fts.db'), site.dataDir),
    }),
})

function sqliteFile(options: SqliteDescriptorOptions, site: AdapterSite): string {
  return configuredPath('storage.path', options.path ?? DEFAULT_SQLITE_PATH, site.root)
}
