import { accessSync, constants, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
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

/**
 * The page cache of a connection this package opens, in KiB (`PRAGMA cache_size = -N`). better-sqlite3
 * builds SQLite with 16 MB, which a long-lived server fills as the file grows (16 MB of its resident
 * memory at 10k facts); the operating system caches the file's pages anyway, so SQLite's own 2 MB
 * default keeps the hot B-tree pages without holding the file twice.
 */
export const PAGE_CACHE_KIB = 2000

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
    const onDisk = file !== ':memory:' && file !== ''
    if (onDisk) mkdirSync(dirname(file), { recursive: true })
    // A file this process cannot write, or in a folder it cannot write (SQLite makes its -wal and
    // -shm there), is opened read-only: reads work, and a write says why it cannot.
    const readOnly = onDisk && existsSync(file) && !(isWritable(file) && isWritable(dirname(file)))
    db = readOnly ? openReadOnly(file, timeout) : new Database(file, { timeout })
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`)
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
    db.pragma(db.readonly ? 'journal_mode' : 'journal_mode = WAL')
    migrate(db, file)
    return createConnection(db, file, timeout)
  } catch (error) {
    throw translate(error, file)
  }
}

function isWritable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK)
    return true
  } catch {
    return false
  }
}

/**
 * Open an existing file read-only. A WAL database needs its -shm file beside it, which a read-only
 * folder cannot hold: then a copy of the file (and its -wal) in the system's temporary folder is
 * opened read-only instead, so reads see the data as it was when it was opened. Copies are removed
 * when the process exits.
 */
function openReadOnly(file: string, timeout: number): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout })
  try {
    db.pragma('schema_version') // the first read: opens the -wal and -shm, or fails for want of them
    return db
  } catch (error) {
    db.close()
    if (!/^SQLITE_(CANTOPEN|READONLY|IOERR)/.test((error as { code?: string }).code ?? '')) throw error
  }
  const dir = mkdtempSync(join(tmpdir(), 'foundry-readonly-'))
  if (!copies.length) process.once('exit', () => copies.forEach((d) => rmSync(d, { recursive: true, force: true })))
  copies.push(dir)
  const copy = join(dir, basename(file))
  copyFileSync(file, copy)
  if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`)
  return new Database(copy, { readonly: true, fileMustExist: true, timeout })
}

/** Temporary folders holding read-only copies, removed at exit. */
const copies: string[] = []
