import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { createConnection, type Connection } from './connection.js'
import { translate } from './errors.js'
import { migrate } from './schema.js'

/** Where the data lives: a file this package opens and closes, or a connection the caller owns and closes. */
export type SqliteTarget = { path: string; database?: never } | { database: Database.Database; path?: never }

export interface OpenOptions {
  /** Milliseconds a write waits for another process's write transaction before UNAVAILABLE. Default 10 000. */
  timeout?: number
}

export interface Opened {
  connection: Connection
  /** Wait for pending writes, then close the file when this package opened it. */
  close(): Promise<void>
}

export const DEFAULT_TIMEOUT = 10_000

/** Connections by the caller's `Database`, so a storage and a retriever given the same one share its queue. */
const adopted = new WeakMap<Database.Database, Connection>()

/**
 * Open (creating it and its folder when missing) or adopt an SQLite file: WAL journal, the busy
 * timeout, and the schema migrated to this version. Throws CORRUPT for a file that is not SQLite,
 * CONFLICT for a newer or foreign schema, UNAVAILABLE when it cannot be opened.
 */
export function openTarget(target: SqliteTarget, options: OpenOptions = {}): Opened {
  const timeout = options.timeout ?? DEFAULT_TIMEOUT
  if (target.database) {
    const db = target.database
    let connection = adopted.get(db)
    if (!connection) {
      connection = prepare(db, db.name, timeout)
      adopted.set(db, connection)
    }
    const shared = connection
    return { connection: shared, close: () => shared.idle() }
  }
  const file = target.path
  let db: Database.Database | undefined
  try {
    if (file !== ':memory:' && file !== '') mkdirSync(dirname(file), { recursive: true })
    db = new Database(file, { timeout })
    const connection = prepare(db, file, timeout)
    const owned = db
    return {
      connection,
      async close() {
        await connection.idle()
        if (owned.open) owned.close()
      },
    }
  } catch (error) {
    db?.close()
    throw translate(error, file)
  }
}

function prepare(db: Database.Database, file: string, timeout: number): Connection {
  try {
    db.pragma(`busy_timeout = ${timeout}`)
    // The first statement reads the header: a file that is not SQLite fails here, as CORRUPT.
    db.pragma('journal_mode = WAL')
    migrate(db, file)
    return createConnection(db, file, timeout)
  } catch (error) {
    throw translate(error, file)
  }
}
