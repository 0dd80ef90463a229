import { join } from 'node:path'
import { FoundryError } from '@foundry/kernel'
import { defineStorage, type AdapterSite } from '@foundry/kernel/adapter'
import { inspectDatabase } from './doctor.js'
import { postgresStorage } from './postgres-storage.js'
import { redactUrl } from './url.js'

/** The options of `"storage": { "kind": "postgres", … }` in `.foundry/config.json`. */
export interface PostgresDescriptorOptions {
  /** The connection URL; default the FOUNDRY_DATABASE_URL environment variable (keep the password out of the file). */
  url?: string
  /** Milliseconds an exclusive section waits for another process's before UNAVAILABLE. Default 10 000. */
  timeout?: number
  /** Pooled connections per process at most. Default 4. */
  poolSize?: number
}

/** The environment variable holding the URL when config.json has none. */
export const DATABASE_URL_ENV = 'FOUNDRY_DATABASE_URL'

// JSON Schema as a plain object: the kernel's validator compiles it. The URL is checked in open(),
// so that no validation message can quote it (and its password).
const PostgresDescriptorOptionsSchema = {
  type: 'object',
  properties: {
    url: {
      type: 'string',
      minLength: 1,
      description: `postgres://user:password@host:5432/database; default the ${DATABASE_URL_ENV} environment variable`,
    },
    timeout: {
      type: 'integer',
      minimum: 0,
      description: 'Milliseconds a write section waits for another process. Default 10000',
    },
    poolSize: { type: 'integer', minimum: 1, maximum: 100, description: 'Connections per process at most. Default 4' },
  },
  additionalProperties: false,
} as const

/** `"storage": { "kind": "postgres" }`: every record in a PostgreSQL database, shared by processes on many machines. */
export const postgresDescriptor = defineStorage({
  kind: 'postgres',
  description: `every record in a PostgreSQL database (url, or the ${DATABASE_URL_ENV} environment variable)`,
  options: PostgresDescriptorOptionsSchema,
  open: (options: PostgresDescriptorOptions, site) =>
    postgresStorage({
      url: databaseUrl(options, site),
      ...(options.timeout !== undefined && { timeout: options.timeout }),
      ...(options.poolSize !== undefined && { poolSize: options.poolSize }),
    }),
  doctor: (options: PostgresDescriptorOptions, site) => inspectDatabase(databaseUrl(options, site)),
  // Servers on several machines share the database: the team's tokens live in it.
  networked: true,
  // A job queue (pg-boss) keeps its tables in the same database.
  queueUrl: (options: PostgresDescriptorOptions, site) => databaseUrl(options, site),
})

/**
 * The URL the options name, else FOUNDRY_DATABASE_URL's; INVALID_INPUT naming both when neither is
 * set, or when it is not a postgres:// URL (shown with its password redacted).
 */
export function databaseUrl(
  options: PostgresDescriptorOptions,
  site: AdapterSite,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const file = join(site.dataDir, 'config.json')
  const url = options.url ?? env[DATABASE_URL_ENV]
  if (!url)
    throw new FoundryError(
      'INVALID_INPUT',
      `storage "postgres" needs a database URL: set ${DATABASE_URL_ENV}=postgres://user:password@host:5432/database in the environment, or "url" in the storage of ${file}`,
    )
  const from = options.url !== undefined ? `storage.url in ${file}` : DATABASE_URL_ENV
  let protocol: string
  try {
    protocol = new URL(url).protocol
  } catch {
    throw new FoundryError(
      'INVALID_INPUT',
      `${from} is not a URL (${redactUrl(url)}): write it as postgres://user:password@host:5432/database (percent-encode special characters in the password)`,
    )
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:')
    throw new FoundryError('INVALID_INPUT', `${from} must be a postgres:// or postgresql:// URL; got ${redactUrl(url)}`)
  return url
}
