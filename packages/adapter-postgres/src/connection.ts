import { AsyncLocalStorage } from 'node:async_hooks'
import { FoundryError } from '@foundry/kernel'
import pg from 'pg'
import { EXCLUSIVE_LOCK, LOCK_CLASS } from './schema.js'
import { translate } from './errors.js'
import { redactUrl } from './url.js'

/** A statement: named ones are prepared once per connection. */
export interface Statement {
  name?: string
  text: string
  values?: unknown[]
}

interface Section {
  client: pg.PoolClient
  open: boolean
  /** What the section wrote: told to `afterWrite` once it commits. */
  touched: Set<string>
  /** The section's statements run one after another on its connection (pg 9 refuses overlapping queries on one client). */
  tail: Promise<unknown>
  state: SectionState
}

/**
 * What a section learnt that saves it round trips while it holds the lock (see postgresStorage):
 * records `changes()` read along with their keys, and each collection's revision after its own write.
 */
export interface SectionState {
  /** `<collection>/<key>` → the row's text (null: deleted), each served once to a `get` in the section. */
  prefetched: Map<string, string | null>
  /** Collection → revision token after the section's last write to it (its revision row is locked by that write until the commit). */
  revisions: Map<string, string>
}

/**
 * The pool, and the exclusive section. A statement outside a section runs on any pooled connection
 * as its own transaction; inside a section (the same async context) it runs on the section's
 * connection, inside its transaction. Sections of this process queue here (one pooled connection
 * waits on the advisory lock, not all of them); sections of every process queue on the lock.
 */
export interface Connection {
  /** The URL with its password redacted, for messages. */
  readonly where: string
  query<R extends pg.QueryResultRow>(statement: Statement): Promise<pg.QueryResult<R>>
  inSection(): boolean
  /** The current section's state, or undefined outside a section. */
  sectionState(): SectionState | undefined
  /** Note a write to `what` (`c:<collection>` or `l:<log>`); told to `afterWrite` now, or when the section commits. */
  wrote(what: string): void
  exclusive<T>(fn: () => Promise<T>): Promise<T>
  close(): Promise<void>
}

export interface ConnectionOptions {
  url: string
  /** Milliseconds a section waits for the lock before UNAVAILABLE. */
  timeout: number
  /** Pooled connections at most. */
  poolSize: number
  /** Called after each committed write, with what it wrote. */
  afterWrite(what: string): void
}

export function createConnection(options: ConnectionOptions): Connection {
  const { url, timeout } = options
  const where = redactUrl(url)
  // allowExitOnIdle: a CLI process exits when its work is done, without waiting for idle connections to time out.
  // lock_timeout bounds every wait for another process's locks (the advisory lock of a section, the
  // revision row of a collection a section has written), so no write waits past `timeout`.
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    allowExitOnIdle: true,
    idleTimeoutMillis: 10_000,
    options: `-c lock_timeout=${Math.max(1, Math.floor(timeout))}`,
  })
  // An idle connection the server drops is replaced on the next query; the error itself is not this process's to crash on.
  pool.on('error', () => undefined)
  const context = new AsyncLocalStorage<Section>()
  let queue: Promise<unknown> = Promise.resolve()
  let closed = false

  const section = () => {
    const s = context.getStore()
    return s?.open ? s : undefined
  }
  const fail = (error: unknown) => translate(error, url, timeout)

  function enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = queue.then(task, task)
    queue = run.catch(() => undefined)
    return run
  }

  return {
    where,

    async query<R extends pg.QueryResultRow>(statement: Statement) {
      if (closed) throw new FoundryError('UNAVAILABLE', `postgresStorage for ${where} is closed`)
      const s = section()
      try {
        if (!s) return await pool.query<R>(statement)
        const run = s.tail.then(() => s.client.query<R>(statement))
        s.tail = run.catch(() => undefined)
        return await run
      } catch (error) {
        throw fail(error)
      }
    },

    inSection: () => section() !== undefined,
    sectionState: () => section()?.state,

    wrote(what) {
      const s = section()
      if (s) s.touched.add(what)
      else options.afterWrite(what)
    },

    exclusive<T>(fn: () => Promise<T>): Promise<T> {
      if (section()) return Promise.reject(new FoundryError('UNSUPPORTED', `exclusive sections on ${where} do not nest: call the storage directly inside the section`))
      if (closed) return Promise.reject(new FoundryError('UNAVAILABLE', `postgresStorage for ${where} is closed`))
      return enqueue(async () => {
        let client: pg.PoolClient
        try {
          client = await pool.connect()
        } catch (error) {
          throw fail(error)
        }
        const s: Section = { client, open: true, touched: new Set(), tail: Promise.resolve(), state: { prefetched: new Map(), revisions: new Map() } }
        let broken: Error | undefined
        try {
          // One round trip: the lock is waited for (up to lock_timeout), then held until COMMIT or ROLLBACK.
          await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${LOCK_CLASS}, ${EXCLUSIVE_LOCK})`)
          const value = await context.run(s, fn)
          s.open = false
          await s.tail
          await client.query('COMMIT')
          for (const what of s.touched) options.afterWrite(what)
          return value
        } catch (error) {
          s.open = false
          try {
            await s.tail
            await client.query('ROLLBACK')
          } catch (rollback) {
            broken = rollback as Error // the connection is gone: do not return it to the pool
          }
          throw fail(error)
        } finally {
          s.open = false
          client.release(broken)
        }
      })
    },

    async close() {
      if (closed) return
      closed = true
      await queue
      await pool.end()
    },
  }
}
