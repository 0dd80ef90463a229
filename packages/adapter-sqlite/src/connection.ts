import { AsyncLocalStorage } from 'node:async_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { FoundryError } from '@foundry/kernel'
import type BetterSqlite3 from 'better-sqlite3'
import { guard, isBusy, translate } from './errors.js'

export type Database = BetterSqlite3.Database

/**
 * One SQLite connection shared by everything that uses the same `Database` in this process (a
 * storage and an FTS retriever may share one). better-sqlite3 is synchronous and a connection has
 * one transaction, so this is where writes are ordered:
 * - an exclusive section is a `BEGIN IMMEDIATE` transaction held while an async function runs;
 *   sections run one at a time in this process (a queue) and across processes (SQLite's write lock);
 * - a write outside a section is its own small IMMEDIATE transaction, queued behind the sections;
 *   a write inside a section (the same async context) joins its transaction as a savepoint;
 * - a read outside a section waits while another section holds the transaction, so it never sees
 *   writes that may still roll back.
 */
export interface Connection {
  readonly db: Database
  /** The file, for messages. */
  readonly file: string
  read<T>(fn: () => T): Promise<T>
  /**
   * `durable: false` commits without syncing the log to disk: for caches and metrics (the FTS
   * index, retriever snapshots, events), where a power loss may drop the last commits but never
   * corrupts the file. Inside a section the section's own (durable) commit applies.
   */
  write<T>(fn: () => T, options?: { durable?: boolean }): Promise<T>
  /** Commits when `fn` resolves, rolls back when it throws. Throws UNAVAILABLE when the write lock is not free in time. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>
  /** Resolves once every queued write and section has settled. */
  idle(): Promise<void>
}

interface Section {
  open: boolean
  done: Promise<void>
}

/** Longest pause between two attempts at the write lock, in milliseconds. */
const MAX_BACKOFF = 25

/**
 * `timeout`: how long a write waits for another process's write transaction before UNAVAILABLE.
 * The connection's own busy timeout (for the rare waits of readers) is set by whoever opened it.
 */
export function createConnection(db: Database, file: string, timeout: number): Connection {
  const context = new AsyncLocalStorage<Section>()
  let queue: Promise<unknown> = Promise.resolve()
  let current: Section | undefined
  const statements = {
    begin: db.prepare('BEGIN IMMEDIATE'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
    savepoint: db.prepare('SAVEPOINT write'),
    release: db.prepare('RELEASE write'),
    undo: db.prepare('ROLLBACK TO write'),
  }
  // A PRAGMA acts when it is compiled: a prepared one acts at prepare time, then not on its first run
  // (SQLite recompiles it before each later run). So these are compiled afresh on every call.
  // Waiting for the write lock happens in `begin`, without blocking the event loop; readers keep
  // the busy timeout the connection was opened with.
  const readerTimeout = Number(db.pragma('busy_timeout', { simple: true }))
  const pragmas = {
    noWait: () => db.pragma('busy_timeout = 0'),
    wait: () => db.pragma(`busy_timeout = ${readerTimeout}`),
    sync: (durable: boolean) => db.pragma(`synchronous = ${durable ? 'FULL' : 'NORMAL'}`),
  }

  const inSection = () => context.getStore()?.open === true

  function enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = queue.then(task, task)
    queue = run.catch(() => undefined)
    return run
  }

  /** Take SQLite's write lock without blocking the event loop: try at once, back off, give up at the deadline. */
  async function begin(durable: boolean): Promise<void> {
    // WAL with FULL syncs the log on every commit (~0.5 ms here); NORMAL leaves it to checkpoints.
    pragmas.sync(durable)
    const deadline = Date.now() + timeout
    for (let attempt = 0; ; attempt++) {
      try {
        pragmas.noWait()
        statements.begin.run()
        return
      } catch (error) {
        if (!isBusy(error)) throw translate(error, file)
      } finally {
        pragmas.wait()
      }
      const left = deadline - Date.now()
      if (left <= 0)
        throw new FoundryError(
          'UNAVAILABLE',
          `${file} is locked by another process's write transaction; gave up after ${timeout} ms. Retry, or raise the sqlite storage's timeout`,
        )
      const pause = Math.min(MAX_BACKOFF, 2 ** attempt) * (0.5 + Math.random())
      await sleep(Math.min(left, pause))
    }
  }

  function rollback(): void {
    if (db.inTransaction) statements.rollback.run()
  }

  function commit(): void {
    try {
      statements.commit.run()
    } catch (error) {
      rollback()
      throw translate(error, file)
    }
  }

  return {
    db,
    file,

    async read(fn) {
      if (!inSection()) while (current) await current.done
      return guard(file, fn)
    },

    async write(fn, options) {
      if (inSection())
        return guard(file, () => {
          statements.savepoint.run()
          try {
            const value = fn()
            statements.release.run()
            return value
          } catch (error) {
            statements.undo.run()
            statements.release.run()
            throw error
          }
        })
      return enqueue(async () => {
        await begin(options?.durable ?? true)
        try {
          const value = guard(file, fn)
          commit()
          return value
        } catch (error) {
          rollback()
          throw error
        }
      })
    },

    exclusive(fn) {
      if (inSection())
        return Promise.reject(
          new FoundryError(
            'UNSUPPORTED',
            `exclusive sections on ${file} do not nest: call the storage directly inside the section`,
          ),
        )
      return enqueue(async () => {
        await begin(true)
        let settle!: () => void
        const section: Section = { open: true, done: new Promise<void>((resolve) => (settle = resolve)) }
        current = section
        try {
          const value = await context.run(section, fn)
          commit()
          return value
        } catch (error) {
          try {
            rollback()
          } catch {
            // The section's own error is the one worth reporting.
          }
          throw error
        } finally {
          section.open = false
          current = undefined
          settle()
        }
      })
    },

    async idle() {
      await queue
    },
  }
}
