import { join } from 'node:path'
import { FoundryError } from '@foundry/kernel'
import { defineRetriever } from '@foundry/kernel/adapter'
import { DATABASE_URL_ENV, databaseUrl, type PostgresDescriptorOptions } from './descriptor.js'
import { postgresRetriever } from './retriever.js'

/** The options of `"retrieval": { "kind": "postgres", … }` in `.foundry/config.json`. */
export interface PostgresRetrieverDescriptorOptions {
  /** See `PostgresRetrieverOptions`. */
  config?: string
  prefixMinLength?: number
  fuzzy?: number
  weights?: { title?: number; tags?: number }
  bm25?: { k1?: number; b?: number }
  connections?: number
}

// JSON Schema as plain objects: the kernel's validator compiles them.
const weight = { type: 'number', minimum: 0 } as const

const PostgresRetrieverDescriptorOptionsSchema = {
  type: 'object',
  properties: {
    config: {
      type: 'string',
      pattern: '^[A-Za-z_][A-Za-z0-9_.]*$',
      description: 'The text search configuration (english, simple, german…). Default english',
    },
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
    weights: { type: 'object', properties: { title: weight, tags: weight }, additionalProperties: false },
    bm25: {
      type: 'object',
      properties: { k1: { type: 'number', minimum: 0, maximum: 10 }, b: { type: 'number', minimum: 0, maximum: 1 } },
      additionalProperties: false,
    },
    connections: {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      description: 'Connections per process at most. Default 2',
    },
  },
  additionalProperties: false,
} as const

/**
 * `"retrieval": { "kind": "postgres" }`: PostgreSQL full-text search with BM25, its tables in the
 * storage's database when the storage is postgres, else in the database FOUNDRY_DATABASE_URL names
 * (the URL, and its password, stay out of config.json), shared by every process on every machine.
 */
export const postgresRetrieverDescriptor = defineRetriever({
  kind: 'postgres',
  description: `PostgreSQL full-text search ranked by BM25, in the storage's database when it is postgres, else in ${DATABASE_URL_ENV}'s`,
  options: PostgresRetrieverDescriptorOptionsSchema,
  open: (options: PostgresRetrieverDescriptorOptions, site) => {
    const storage = site.storage.kind === 'postgres' ? (site.storage.options as PostgresDescriptorOptions) : undefined
    if (!storage && !process.env[DATABASE_URL_ENV])
      throw new FoundryError(
        'INVALID_INPUT',
        `retrieval "postgres" needs a database: use storage "postgres", or set ${DATABASE_URL_ENV}=postgres://user:password@host:5432/database in the environment (storage is "${site.storage.kind}" in ${join(site.dataDir, 'config.json')})`,
      )
    // The storage's URL as the storage resolves it (its url, else the environment's; checked, shown redacted).
    return postgresRetriever({ ...options, url: databaseUrl(storage ?? {}, site) })
  },
})
