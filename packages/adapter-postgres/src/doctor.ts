import type { DoctorFinding } from '@foundry/kernel/adapter'
import pg from 'pg'
import { translate } from './errors.js'
import { schemaVersion } from './migrate.js'
import { EXCLUSIVE_LOCK, LOCK_CLASS, STORAGE_COMPONENT, STORAGE_SCHEMA_VERSION } from './schema.js'
import { redactUrl } from './url.js'

/** A section holding the write lock longer than this is reported. */
const STUCK_SECONDS = 60

/**
 * `foundry doctor` on a Postgres database: can it be reached, is its schema one this code reads, and
 * who holds the exclusive write section (a session idle in its transaction for long holds every
 * writer up). Reported, never "fixed": PostgreSQL recovers its own state after a crash, and ending
 * another session is a person's decision (`SELECT pg_terminate_backend(<pid>)`).
 */
export async function inspectDatabase(url: string): Promise<DoctorFinding[]> {
  const path = redactUrl(url)
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => undefined)
  try {
    await client.connect()
  } catch (error) {
    return [{ status: 'unfixable', check: 'connection', path, message: (translate(error, url) as Error).message }]
  }
  try {
    const findings: DoctorFinding[] = []
    const version = await schemaVersion(client, STORAGE_COMPONENT)
    if (version === undefined)
      findings.push({
        status: 'note',
        check: 'schema',
        path,
        message: 'no Foundry tables yet (created when the project first opens)',
      })
    else if (version > STORAGE_SCHEMA_VERSION)
      findings.push({
        status: 'unfixable',
        check: 'schema',
        path,
        message: `storage schema version ${version} is newer than this @foundry/adapter-postgres (${STORAGE_SCHEMA_VERSION}): upgrade @foundry/adapter-postgres`,
      })
    else
      findings.push({
        status: 'note',
        check: 'schema',
        path,
        message: `storage schema version ${version} (this code: ${STORAGE_SCHEMA_VERSION})`,
      })
    const { rows } = await client.query<{
      pid: number
      state: string | null
      seconds: number | null
      host: string | null
    }>(
      `SELECT l.pid, a.state, extract(epoch FROM now() - a.xact_start)::float AS seconds, a.client_addr::text AS host
         FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1 AND l.objid = $2 AND l.objsubid = 2`,
      [LOCK_CLASS, EXCLUSIVE_LOCK],
    )
    for (const holder of rows) {
      const seconds = Math.round(holder.seconds ?? 0)
      const who = `session ${holder.pid}${holder.host ? ` from ${holder.host}` : ''} (${holder.state ?? 'unknown state'})`
      findings.push(
        seconds > STUCK_SECONDS
          ? {
              status: 'unfixable',
              check: 'lock',
              path,
              message: `${who} has held the exclusive write section for ${seconds} s: find that process, or end the session with SELECT pg_terminate_backend(${holder.pid})`,
            }
          : { status: 'note', check: 'lock', path, message: `${who} holds the exclusive write section (${seconds} s)` },
      )
    }
    return findings
  } catch (error) {
    return [{ status: 'unfixable', check: 'connection', path, message: (translate(error, url) as Error).message }]
  } finally {
    await client.end().catch(() => undefined)
  }
}
