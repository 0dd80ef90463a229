import { FoundryError } from '@foundry/kernel'
import type pg from 'pg'

/** One step of a component's schema: step `i` takes it from version `i` to `i + 1`. Released steps are never edited. */
export interface MigrationStep {
  /** What the step adds, for readers. */
  about: string
  /** SQL run in the migrating transaction, or a function that runs its own statements on the client. */
  sql: string | ((client: pg.ClientBase) => Promise<void>)
}

export interface MigrateOptions {
  /** Where the schema lives, for messages (a redacted URL). */
  where?: string
  /** The version to reach; default every step. For tests that build an older schema. */
  target?: number
}

/** The advisory lock every migration takes, in the two-integer form: "FOUN", 0 (one lock for all components: migrations are rare and short). */
const MIGRATION_LOCK = [0x464f554e, 0]

/**
 * Bring `component`'s tables to `steps.length` (or `options.target`), recorded in
 * `foundry_schema(component, version)`. Runs in one transaction under an advisory lock, so processes
 * opening a new database at once migrate it once; an already current schema costs one read. Returns
 * the version found before migrating. Throws CONFLICT when the database's schema is newer than the code.
 */
export async function migrate(
  client: pg.ClientBase,
  component: string,
  steps: readonly MigrationStep[],
  options: MigrateOptions = {},
): Promise<number> {
  const target = options.target ?? steps.length
  const where = options.where ?? 'the database'
  const current = await readVersion(client, component)
  if (current !== undefined) {
    assertNotNewer(current, steps.length, component, where)
    if (current >= target) return current
  }
  await client.query('BEGIN')
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', MIGRATION_LOCK)
    await client.query(
      'CREATE TABLE IF NOT EXISTS foundry_schema (component text PRIMARY KEY, version integer NOT NULL)',
    )
    const found = (await readVersion(client, component)) ?? 0
    assertNotNewer(found, steps.length, component, where)
    for (let v = found; v < target; v++) {
      const step = steps[v]!
      if (typeof step.sql === 'string') await client.query(step.sql)
      else await step.sql(client)
    }
    if (found < target)
      await client.query(
        'INSERT INTO foundry_schema (component, version) VALUES ($1, $2) ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version',
        [component, target],
      )
    await client.query('COMMIT')
    return found
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  }
}

/** The component's recorded version, `undefined` when it has none (or there is no `foundry_schema` table yet). */
export async function schemaVersion(client: pg.ClientBase, component: string): Promise<number | undefined> {
  return readVersion(client, component)
}

async function readVersion(client: pg.ClientBase, component: string): Promise<number | undefined> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('foundry_schema')::text AS t")
  if (!exists.rows[0]?.t) return undefined
  const row = await client.query<{ version: number }>('SELECT version FROM foundry_schema WHERE component = $1', [
    component,
  ])
  return row.rows[0]?.version
}

function assertNotNewer(found: number, known: number, component: string, where: string): void {
  if (found > known)
    throw new FoundryError(
      'CONFLICT',
      `${where}: the ${component} schema version ${found} is newer than this @foundry/adapter-postgres (${known}): upgrade @foundry/adapter-postgres, or export the data with the newer version`,
    )
}
