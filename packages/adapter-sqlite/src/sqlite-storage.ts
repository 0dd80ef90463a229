import { randomBytes } from 'node:crypto'
import {
  createStorage,
  encodeRecord,
  EVENTS_LOG,
  readRecordRow,
  readRecordRows,
  type CollectionName,
  type ListOptions,
  type RecordOf,
  type StorageDriver,
  type StorageEntry,
  type WriteOptions,
} from '@foundry/kernel/adapter'
import type { Storage } from '@foundry/kernel'
import { openTarget, type OpenOptions, type SqliteTarget } from './open.js'

export type SqliteStorageOptions = SqliteTarget &
  OpenOptions & {
    /** How many changes per collection `changes()` reaches back; older revisions answer `undefined`. Default 10 000. */
    changeLogSize?: number
  }

interface RevisionRow {
  revision: number
  tag: string
  log_base: number
}

/** Tags make each write's revision token unique: this process's random prefix and a counter. */
const TAG_PREFIX = randomBytes(6).toString('base64url')
let tagCounter = 0
const nextTag = () => `${TAG_PREFIX}${(tagCounter++).toString(36)}`

/** `<revision>.<tag>`, or `0` for a collection never written. */
const REVISION = /^(\d+)\.([A-Za-z0-9_-]+)$/

/** Keys and log names are ASCII (assertKey, assertLogName): every one starting with a prefix sorts below prefix + U+10FFFF. */
const upTo = (prefix: string) => `${prefix}\u{10FFFF}`

/** A relaxed write commits without syncing the log to disk (see Connection.write). */
const durable = (options?: WriteOptions) => ({ durable: options?.durability !== 'relaxed' })

/**
 * Storage in one SQLite file (better-sqlite3, WAL): every collection, the kernel's and the open
 * ones, in one table, a revision counter and a change log per collection bumped in the same
 * transaction as each write, the event log and the append-only logs in tables of their own. Safe
 * with many processes, and transactional: `exclusive` is an IMMEDIATE transaction that commits when
 * the section succeeds and rolls back when it throws.
 */
export function sqliteStorage(options: SqliteStorageOptions): Storage {
  return createStorage(sqliteDriver(options))
}

/** The SQLite file's `StorageDriver`: what `sqliteStorage` wraps. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose returned object holds the methods; each method is short
export function sqliteDriver(options: SqliteStorageOptions): StorageDriver {
  const opened = openTarget(options, options)
  const { connection } = opened
  const { db, file } = connection
  const logSize = options.changeLogSize ?? 10_000
  const sql = {
    get: db.prepare<[string, string], string>('SELECT value FROM records WHERE collection = ? AND key = ?').pluck(),
    list: db.prepare<[string], { key: string; value: string }>(
      'SELECT key, value FROM records WHERE collection = ? ORDER BY key',
    ),
    listPrefix: db.prepare<[string, string, string], { key: string; value: string }>(
      'SELECT key, value FROM records WHERE collection = ? AND key >= ? AND key < ? ORDER BY key',
    ),
    put: db.prepare<[string, string, string]>(
      'INSERT INTO records (collection, key, value) VALUES (?, ?, ?) ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value',
    ),
    keys: db
      .prepare<[string, string, string], string>(
        'SELECT key FROM records WHERE collection = ? AND key >= ? AND key < ? ORDER BY key',
      )
      .pluck(),
    delete: db.prepare<[string, string]>('DELETE FROM records WHERE collection = ? AND key = ?'),
    // Jump from one collection to the next through the primary key's index, instead of reading every row.
    collections: db
      .prepare<[], string>(
        `WITH RECURSIVE found(name) AS (
           SELECT min(collection) FROM records
           UNION ALL
           SELECT (SELECT min(collection) FROM records WHERE collection > found.name) FROM found WHERE found.name IS NOT NULL
         )
         SELECT name FROM found WHERE name IS NOT NULL`,
      )
      .pluck(),
    bump: db.prepare<[string, string], RevisionRow>(
      `INSERT INTO revisions (collection, revision, tag, log_base) VALUES (?, 1, ?, 0)
       ON CONFLICT (collection) DO UPDATE SET revision = revision + 1, tag = excluded.tag
       RETURNING revision, tag, log_base`,
    ),
    log: db.prepare<[string, number, string, string]>(
      'INSERT INTO changes (collection, revision, key, tag) VALUES (?, ?, ?, ?)',
    ),
    trim: db.prepare<[string, number]>('DELETE FROM changes WHERE collection = ? AND revision <= ?'),
    setBase: db.prepare<[number, string]>('UPDATE revisions SET log_base = ? WHERE collection = ?'),
    revision: db.prepare<[string], RevisionRow>('SELECT revision, tag, log_base FROM revisions WHERE collection = ?'),
    tagAt: db
      .prepare<[string, number], string>('SELECT tag FROM changes WHERE collection = ? AND revision = ?')
      .pluck(),
    changes: db
      .prepare<[string, number], string>(
        'SELECT key FROM changes WHERE collection = ? AND revision > ? ORDER BY revision',
      )
      .pluck(),
    append: db.prepare<[string]>('INSERT INTO events (event) VALUES (?)'),
    events: db.prepare<[], string>('SELECT event FROM events ORDER BY seq').pluck(),
    logEnd: db.prepare<[string], number>('SELECT coalesce(max(seq), 0) FROM logs WHERE name = ?').pluck(),
    logAppend: db.prepare<[string, number, string]>('INSERT INTO logs (name, seq, entry) VALUES (?, ?, ?)'),
    logDelete: db.prepare<[string]>('DELETE FROM logs WHERE name = ?'),
    // LIMIT -1: no limit.
    logRead: db.prepare<[string, number, number], { seq: number; entry: string }>(
      'SELECT seq, entry FROM logs WHERE name = ? AND seq > ? ORDER BY seq LIMIT ?',
    ),
    logs: db
      .prepare<[{ from: string; to: string }], string>(
        `WITH RECURSIVE found(name) AS (
           SELECT min(name) FROM logs WHERE name >= @from AND name < @to
           UNION ALL
           SELECT (SELECT min(name) FROM logs WHERE name > found.name AND name < @to) FROM found WHERE found.name IS NOT NULL
         )
         SELECT name FROM found WHERE name IS NOT NULL`,
      )
      .pluck(),
  }
  const locate = (c: CollectionName, key: string) => `${file}#${c}/${key}`
  const token = (row: RevisionRow | undefined) => (row ? `${row.revision}.${row.tag}` : '0')

  /** Count one change of `key`; runs inside the write's transaction. */
  function touch(c: CollectionName, key: string): void {
    const row = sql.bump.get(c, nextTag())!
    sql.log.run(c, row.revision, key, row.tag)
    // Trim in batches, so the log stays between logSize and twice that without a delete per write.
    if (row.revision - row.log_base > 2 * logSize) {
      const base = row.revision - logSize
      sql.trim.run(c, base)
      sql.setBase.run(base, c)
    }
  }

  return {
    name: 'sqlite',
    flags: { persistent: true, multiProcess: true, changeLog: true, transactional: true },

    async get<C extends CollectionName>(c: C, key: string) {
      const text = await connection.read(() => sql.get.get(c, key))
      if (text === undefined) return undefined
      return readRecordRow(c, text, locate(c, key))
    },

    async list<C extends CollectionName>(c: C, options: ListOptions) {
      const prefix = options.prefix ?? ''
      const rows = await connection.read(() => (prefix ? sql.listPrefix.all(c, prefix, upTo(prefix)) : sql.list.all(c)))
      return readRecordRows(c, rows, options, locate)
    },

    async keys(c, prefix) {
      return connection.read(() => sql.keys.all(c, prefix, upTo(prefix)))
    },

    async put<C extends CollectionName>(c: C, key: string, value: RecordOf<C>, options?: WriteOptions) {
      const text = encodeRecord(c, value)
      await connection.write(() => {
        sql.put.run(c, key, text)
        touch(c, key)
      }, durable(options))
    },

    async putMany<C extends CollectionName>(c: C, entries: ReadonlyArray<StorageEntry<C>>, options?: WriteOptions) {
      const rows = entries.map(({ key, value }) => [key, encodeRecord(c, value)] as const)
      // One transaction (a savepoint inside a section): one commit, one sync of the log.
      await connection.write(() => {
        for (const [key, text] of rows) {
          sql.put.run(c, key, text)
          touch(c, key)
        }
      }, durable(options))
    },

    async delete(c, key, options) {
      return connection.write(() => {
        if (sql.delete.run(c, key).changes === 0) return false
        touch(c, key)
        return true
      }, durable(options))
    },

    async collections() {
      return (await connection.read(() => sql.collections.all())) as CollectionName[]
    },

    async exclusive<T>(fn: () => Promise<T>): Promise<T> {
      return connection.exclusive(fn)
    },

    async revision(c) {
      return token(await connection.read(() => sql.revision.get(c)))
    },

    async changes(c, since) {
      return connection.read(() => {
        const now = sql.revision.get(c)
        if (since === token(now)) return []
        if (!now) return undefined
        if (since === '0') return now.log_base === 0 ? sql.changes.all(c, 0) : undefined
        const match = REVISION.exec(since)
        if (!match) return undefined
        const from = Number(match[1])
        // The token must name a write this file still remembers: same number and same tag.
        if (from >= now.revision || from <= now.log_base || sql.tagAt.get(c, from) !== match[2]) return undefined
        return sql.changes.all(c, from)
      })
    },

    async appendLog(log, texts, options) {
      // Events keep their table; telemetry never waits for a sync.
      if (log === EVENTS_LOG)
        return connection.write(() => Number(texts.map((text) => sql.append.run(text).lastInsertRowid).pop()), {
          durable: false,
        })
      // max(seq) + 1 inside the write transaction: SQLite's write lock orders appenders of every process.
      return connection.write(() => {
        const end = sql.logEnd.get(log)!
        texts.forEach((entry, i) => sql.logAppend.run(log, end + i + 1, entry))
        return end + texts.length
      }, durable(options))
    },

    async readLog(log, from, count) {
      if (log === EVENTS_LOG)
        return connection.read(() => sql.events.all()).then((entries) => ({ entries, cursor: entries.length }))
      const limit = count ?? -1
      return connection.read(() => {
        const rows = sql.logRead.all(log, from, limit)
        if (rows.length) return { entries: rows.map((r) => r.entry), cursor: rows[rows.length - 1]!.seq }
        // Nothing to read: a cursor past the end answers the end, as the reference storage does.
        return { entries: [], cursor: Math.min(from, sql.logEnd.get(log)!) }
      })
    },

    async logEnd(log) {
      return connection.read(() => sql.logEnd.get(log)!)
    },

    async logs(prefix) {
      return connection.read(() => sql.logs.all({ from: prefix, to: upTo(prefix) }))
    },

    async deleteLog(log) {
      return connection.write(() => sql.logDelete.run(log).changes > 0, durable())
    },

    locate,

    async close() {
      await opened.close()
    },
  }
}
