import {
  createStorage,
  encodeRecord,
  EVENTS_LOG,
  readRecordRow,
  readRecordRows,
  type CollectionName,
  type ListOptions,
  type RecordOf,
  type StorageChange,
  type StorageDriver,
  type StorageEntry,
  type WriteOptions,
} from '@foundry/kernel/adapter'
import type { Storage } from '@foundry/kernel'
import { FoundryError } from '@foundry/kernel'
import pg from 'pg'
import { createConnection, type SectionState, type Statement } from './connection.js'
import { translate } from './errors.js'
import { migrate } from './migrate.js'
import { createListener } from './notify.js'
import { changesFromStatement, createRecordCache, type LoggedChange } from './record-cache.js'
import { redactUrl } from './url.js'
import { CHANGE_CHANNEL, STORAGE_COMPONENT, STORAGE_MIGRATIONS } from './schema.js'
import { appendSql, changesSql, deleteSql, GET_MANY, relaxedTail, writeSql, type ChangeRow } from './storage-sql.js'

export interface PostgresStorageOptions {
  /** The connection URL (`postgres://user:password@host:5432/db`). Never printed: messages show it with the password redacted. */
  url: string
  /** Milliseconds an exclusive section waits for another process's before UNAVAILABLE. Default 10 000. */
  timeout?: number
  /** Pooled connections at most, besides the one listening for changes. Default 4. */
  poolSize?: number
  /** How many changes per collection `changes()` reaches back; older revisions answer `undefined`. Default 10 000. */
  changeLogSize?: number
  /**
   * Answer `revision()` outside a section from memory while the change listener is connected (every
   * commit, by any process, invalidates it through NOTIFY). Default true; false asks the database each time.
   */
  revisionCache?: boolean
  /**
   * Characters of record text kept in memory to answer a repeated `get` outside a section (a
   * search's hits) without a round trip, while `revisionCache` is on and the listener connected;
   * each record is served only at the revision it was read at (see record-cache.ts). Default
   * 16 000 000; 0 keeps nothing.
   */
  readCacheSize?: number
}

interface RevisionRow {
  n: string
  token: string
  log_base: string
}

/** Keys and log names are ASCII (assertKey, assertLogName): every one starting with a prefix sorts below prefix + U+10FFFF ("C" collation). */
const upTo = (prefix: string) => `${prefix}\u{10FFFF}`
/** `<n>.<token>`, or `0` for a collection never written. */
const REVISION = /^(\d+)\.(\d+)$/
const token = (row: RevisionRow | undefined) => (row ? `${row.n}.${row.token}` : '0')

/**
 * Storage in PostgreSQL (`pg`), shared by many processes on many machines: every collection, the
 * kernel's and the open ones, in one table, with a revision counter and a change log per collection
 * written in the same statement as each record; the event log and the append-only logs in tables of
 * their own. Transactional: `exclusive` is a transaction holding an advisory lock. Connects and
 * migrates before it resolves; throws UNAVAILABLE when the server cannot be used, CONFLICT when its
 * schema is newer than this code.
 */
export async function postgresStorage(options: PostgresStorageOptions): Promise<Storage> {
  return createStorage(await postgresDriver(options))
}

/** PostgreSQL's `StorageDriver`: what `postgresStorage` wraps. Connects and migrates before it resolves. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose returned object holds the methods; each method is short
export async function postgresDriver(options: PostgresStorageOptions): Promise<StorageDriver> {
  const { url } = options
  if (typeof url !== 'string' || !url)
    throw new FoundryError(
      'INVALID_INPUT',
      'postgresStorage needs url: a connection URL such as postgres://user:password@host:5432/db',
    )
  const timeout = options.timeout ?? 10_000
  const logSize = options.changeLogSize ?? 10_000
  const useCache = options.revisionCache ?? true

  const client = await connectForMigration(url)
  try {
    await migrate(client, STORAGE_COMPONENT, STORAGE_MIGRATIONS, { where: redactUrl(url) })
  } catch (error) {
    throw translate(error, url)
  } finally {
    await client.end().catch(() => undefined)
  }

  // The revision cache: a token per collection, trusted only while the listener is connected. A
  // generation per collection (bumped by each notification and each own write) keeps a read that
  // raced a change from filling the cache with what it replaced.
  const cached = new Map<string, string>()
  const generations = new Map<string, number>()
  let epoch = 0
  const invalidate = (c: string) => {
    cached.delete(c)
    generations.set(c, (generations.get(c) ?? 0) + 1)
  }
  const listener = createListener({
    url,
    onEvent(change: StorageChange | undefined) {
      if (!change) {
        cached.clear()
        epoch++
      } else if ('collection' in change) invalidate(change.collection)
    },
  })
  // The first record the last section read (the kernel's write sections begin with the write
  // catalog's head): read by the next section with its BEGIN, under the lock, so it costs no round trip.
  let ahead: { c: string; key: string } | undefined
  const connection = createConnection({
    url,
    timeout,
    poolSize: options.poolSize ?? 4,
    afterWrite: (what) => {
      if (what.startsWith('c:')) invalidate(what.slice(2))
    },
    readAhead: () => {
      const read = ahead
      if (!read) return []
      const statement = {
        text: 'SELECT value FROM foundry_records WHERE collection = $1 AND key = $2',
        values: [read.c, read.key],
      }
      return [
        {
          statement,
          then: (rows, state) =>
            void state.prefetched.set(`${read.c}/${read.key}`, (rows[0]?.value as string | undefined) ?? null),
        },
      ]
    },
  })
  const { where } = connection
  const records = createRecordCache({
    maxChars: options.readCacheSize ?? 16_000_000,
    changesFrom: async (c, n) => (await query<LoggedChange>(changesFromStatement(c, n))).rows,
  })
  /** The revision of `c` known without a round trip: only outside a section, while no notification can have been missed. */
  const knownRevision = (c: string) => (useCache && listener.connected ? cached.get(c) : undefined)

  const locate = (c: CollectionName, key: string) => `${where}#${c}/${key}`
  const query = <R extends pg.QueryResultRow>(statement: Statement) => connection.query<R>(statement)
  /** A write outside a section with durability relaxed skips waiting for the WAL flush; inside, the section's commit applies. */
  const relaxed = (options?: WriteOptions) => options?.durability === 'relaxed' && !connection.inSection()

  async function readRevision(c: string): Promise<RevisionRow | undefined> {
    const { rows } = await query<RevisionRow>({
      name: 'foundry_revision',
      text: 'SELECT n, token, log_base FROM foundry_revisions WHERE collection = $1',
      values: [c],
    })
    return rows[0]
  }

  /**
   * After a put or delete: tell the connection (caches, notification), and inside a section remember
   * the collection's new revision: the write holds its revision row until the commit, so no other
   * process can move it, and the section's next revision() needs no round trip.
   */
  function wrote(c: string, key: string, row: RevisionRow | undefined): void {
    records.evict(c, key)
    connection.wrote(`c:${c}`)
    const state = connection.sectionState()
    if (!state) return
    state.prefetched.delete(`${c}/${key}`)
    if (row) state.revisions.set(c, token(row))
  }

  async function logEnd(log: string): Promise<number> {
    const { rows } = await query<{ seq: string }>({
      name: 'foundry_log_end',
      text: 'SELECT seq FROM foundry_log_ends WHERE name = $1',
      values: [log],
    })
    return rows.length ? Number(rows[0]!.seq) : 0
  }

  /** Trim the change log in batches, so it stays between logSize and twice that without a delete per write. */
  async function afterBump(c: string, row: { n: string; log_base: string } | undefined): Promise<void> {
    if (!row || Number(row.n) - Number(row.log_base) <= 2 * logSize) return
    const base = Number(row.n) - logSize
    await connection.defer(
      {
        text: 'WITH trimmed AS (DELETE FROM foundry_changes WHERE collection = $1 AND n <= $2) UPDATE foundry_revisions SET log_base = $2 WHERE collection = $1 AND log_base < $2',
        values: [c, base],
      },
      () => undefined,
    )
  }

  /**
   * A put (or a putMany) inside a section, deferred: it travels with the section's next statement or
   * its COMMIT (see `Connection.defer`). When the section holds the collection's revision row (it read
   * it, or wrote the collection), the write takes a token the section drew and its revision is known
   * before it runs, so the section's `revision()` after it needs no round trip; the rows it returns
   * are checked against it.
   */
  async function putInSection(state: SectionState, c: string, rows: ReadonlyArray<readonly [string, string]>) {
    for (const [key] of rows) state.prefetched.delete(`${c}/${key}`)
    connection.wrote(`c:${c}`)
    const held = REVISION.exec(state.revisions.get(c) ?? '')
    const drawn = held ? state.tokens.shift() : undefined
    const predicted = held && drawn !== undefined ? `${Number(held[1]) + rows.length}.${drawn}` : undefined
    if (predicted) state.revisions.set(c, predicted)
    await connection.defer<RevisionRow>(writeSql(c, rows, drawn, false), (found) => {
      const row = found[0]
      if (predicted === undefined) {
        if (row) state.revisions.set(c, token(row))
      } else if (token(row) !== predicted)
        throw new FoundryError(
          'CONFLICT',
          `${where}: the revision of ${c} moved under the write section (expected ${predicted}, found ${token(row)})`,
        )
      afterBump(c, row).catch(() => undefined) // housekeeping: a trim that fails is due again at the next write
    })
  }

  /** One write of records of `c` (`rows`: distinct keys), in a section deferred, else at once. */
  async function putRows(c: string, rows: ReadonlyArray<readonly [string, string]>, options?: WriteOptions) {
    const state = connection.sectionState()
    if (state) return putInSection(state, c, rows)
    const { rows: found } = await query<RevisionRow>(writeSql(c, rows, undefined, relaxed(options)))
    for (const [key] of rows) wrote(c, key, found[0])
    await afterBump(c, found[0])
  }

  /**
   * Events keep their table, one row each. Telemetry: never worth waiting for outside a section. There
   * an append returns at once, and the events queued meanwhile go in one relaxed statement after the
   * one in flight; `readEvents` and `close` wait for them. Inside a section they are the section's.
   */
  let queuedEvents: string[] = []
  let eventsWritten: Promise<void> = Promise.resolve()
  async function writeQueuedEvents(): Promise<void> {
    const batch = queuedEvents
    queuedEvents = []
    await query({
      name: 'foundry_events_relaxed',
      text: `WITH added AS (INSERT INTO foundry_events (event) SELECT e FROM unnest($1::text[]) WITH ORDINALITY AS t(e, o) ORDER BY o) SELECT 1${relaxedTail(true)}`,
      values: [batch],
    }).catch(() => undefined) // telemetry never fails its caller
  }
  async function appendEvents(texts: readonly string[]): Promise<number> {
    if (connection.inSection()) {
      for (const text of texts)
        await query({ name: 'foundry_event', text: 'INSERT INTO foundry_events (event) VALUES ($1)', values: [text] })
      return 0
    }
    if (!texts.length) return 0
    if (!queuedEvents.length) eventsWritten = eventsWritten.then(writeQueuedEvents)
    queuedEvents.push(...texts)
    return 0
  }
  /** Every event, whole (the kernel reads the events log from 0 only). */
  async function readEvents() {
    await eventsWritten
    const { rows } = await query<{ event: string }>({
      name: 'foundry_events',
      text: 'SELECT event FROM foundry_events ORDER BY seq',
    })
    return { entries: rows.map((r) => r.event), cursor: rows.length }
  }

  return {
    name: 'postgres',
    flags: { persistent: true, multiProcess: true, changeLog: true, transactional: true },

    async get<C extends CollectionName>(c: C, key: string) {
      const state = connection.sectionState()
      const memo = `${c}/${key}`
      let text: string | null | undefined
      if (state && state.reads++ === 0) ahead = { c, key }
      if (state?.prefetched.has(memo)) {
        text = state.prefetched.get(memo)
        state.prefetched.delete(memo)
      } else {
        const now = state ? undefined : knownRevision(c)
        const kept = now === undefined ? undefined : await records.lookup(c, key, now)
        // Gathered: the gets made at once (a write's candidate facts, a search's hits) travel as one statement.
        text =
          kept ??
          (await connection.gather(`get:${c}`, key, (keys) => ({
            name: 'foundry_get_many',
            text: GET_MANY,
            values: [c, keys],
          })))
        if (now !== undefined && kept === undefined && typeof text === 'string') records.keep(c, key, text, now)
      }
      if (text === null || text === undefined) return undefined
      return readRecordRow(c, text, locate(c, key))
    },

    async list<C extends CollectionName>(c: C, options: ListOptions) {
      const prefix = options.prefix ?? ''
      const { rows } = await query<{ key: string; value: string }>({
        name: 'foundry_list',
        text: 'SELECT key, value FROM foundry_records WHERE collection = $1 AND key >= $2 AND key < $3 ORDER BY key',
        values: [c, prefix, upTo(prefix)],
      })
      return readRecordRows(c, rows, options, locate)
    },

    async keys(c, prefix) {
      const { rows } = await query<{ key: string }>({
        name: 'foundry_keys',
        text: 'SELECT key FROM foundry_records WHERE collection = $1 AND key >= $2 AND key < $3 ORDER BY key',
        values: [c, prefix, upTo(prefix)],
      })
      return rows.map((r) => r.key)
    },

    async put<C extends CollectionName>(c: C, key: string, value: RecordOf<C>, options?: WriteOptions) {
      return putRows(c, [[key, encodeRecord(c, value)]], options)
    },

    async putMany<C extends CollectionName>(c: C, entries: ReadonlyArray<StorageEntry<C>>, options?: WriteOptions) {
      // One statement for them all; a key given twice keeps its last value, as puts in turn would.
      const rows = new Map(entries.map(({ key, value }) => [key, encodeRecord(c, value)]))
      if (rows.size) await putRows(c, [...rows], options)
    },

    async delete(c, key, options) {
      const slow = relaxed(options)
      const { rows } = await query<RevisionRow>({
        name: slow ? 'foundry_delete_relaxed' : 'foundry_delete',
        text: deleteSql(slow),
        values: [c, key],
      })
      connection.sectionState()?.prefetched.delete(`${c}/${key}`)
      records.evict(c, key)
      if (!rows.length) return false
      wrote(c, key, rows[0])
      await afterBump(c, rows[0])
      return true
    },

    async collections() {
      // Few collections, each checked through the primary key's index: no scan of the records.
      const { rows } = await query<{ collection: string }>({
        name: 'foundry_collections',
        text: 'SELECT collection FROM foundry_revisions r WHERE EXISTS (SELECT 1 FROM foundry_records WHERE collection = r.collection) ORDER BY collection',
      })
      return rows.map((r) => r.collection as CollectionName)
    },

    exclusive<T>(fn: () => Promise<T>): Promise<T> {
      return connection.exclusive(fn)
    },

    async revision(c) {
      const state = connection.sectionState()
      if (state) {
        const known = state.revisions.get(c)
        if (known !== undefined) return known
        // Read with the row locked until the section ends: no other process can move the revision
        // meanwhile (its write waits, bounded by the timeout), so the section's next read needs no round trip.
        const { rows } = await query<RevisionRow>({
          name: 'foundry_revision_locked',
          text: 'SELECT n, token, log_base FROM foundry_revisions WHERE collection = $1 FOR UPDATE',
          values: [c],
        })
        const found = token(rows[0])
        if (rows[0]) state.revisions.set(c, found)
        return found
      }
      if (!useCache) return token(await readRevision(c))
      void listener.start()
      if (listener.connected) {
        const hit = cached.get(c)
        if (hit !== undefined) return hit
      }
      const before = { connected: listener.connected, epoch, generation: generations.get(c) ?? 0 }
      const found = token(await readRevision(c))
      if (
        before.connected &&
        listener.connected &&
        before.epoch === epoch &&
        before.generation === (generations.get(c) ?? 0)
      )
        cached.set(c, found)
      return found
    },

    async changes(c, since) {
      // One statement: the revision now, whether `since` is still in the log, and the changes after
      // it. Inside a section the records come along with their keys (the kernel reads each changed
      // record next, while it holds the lock), and the statement travels with the section's others.
      const match = since === '0' ? (['0', '0', ''] as const) : REVISION.exec(since)
      if (!match) return undefined
      const state = connection.sectionState()
      const { rows } = await query<ChangeRow>(changesSql(c, Number(match[1]), match[2], state !== undefined))
      const now = rows[0]
      if (!now) return since === '0' ? [] : undefined
      if (since === `${now.n}.${now.token}`) return []
      const from = Number(match[1])
      const reaches = from === 0 ? Number(now.log_base) === 0 : from > Number(now.log_base) && now.at === match[2]
      if (!reaches || from >= Number(now.n)) return undefined
      const changed = rows.filter((r) => r.key !== null)
      if (state) for (const row of changed) state.prefetched.set(`${c}/${row.key}`, row.value)
      return changed.map((r) => r.key!)
    },

    async appendLog(log, texts, options) {
      if (log === EVENTS_LOG) return appendEvents(texts)
      const slow = relaxed(options)
      const { rows } = await query<{ seq: string }>({
        name: slow ? 'foundry_append_relaxed' : 'foundry_append',
        text: appendSql(slow),
        values: [log, texts, texts.length],
      })
      connection.wrote(`l:${log}`)
      return Number(rows[0]!.seq)
    },

    async readLog(log, from, count) {
      if (log === EVENTS_LOG) return readEvents()
      const limit = count ?? null
      const { rows } = await query<{ seq: string; entry: string }>({
        name: 'foundry_read_log',
        text: 'SELECT seq, entry FROM foundry_logs WHERE name = $1 AND seq > $2 ORDER BY seq LIMIT $3',
        values: [log, from, limit],
      })
      if (rows.length) return { entries: rows.map((r) => r.entry), cursor: Number(rows[rows.length - 1]!.seq) }
      // Nothing to read: a cursor past the end answers the end, as the reference storage does.
      return { entries: [], cursor: Math.min(from, await logEnd(log)) }
    },

    logEnd,

    async deleteLog(log) {
      const { rows } = await query<{ n: string }>({
        name: 'foundry_delete_log',
        text: `WITH gone AS (DELETE FROM foundry_logs WHERE name = $1 RETURNING 1), ended AS (DELETE FROM foundry_log_ends WHERE name = $1)
               SELECT count(*) AS n, pg_notify('${CHANGE_CHANNEL}', 'l:' || $1) FROM gone`,
        values: [log],
      })
      connection.wrote(`l:${log}`)
      return Number(rows[0]!.n) > 0
    },

    async logs(prefix) {
      const { rows } = await query<{ name: string }>({
        name: 'foundry_logs',
        text: 'SELECT name FROM foundry_log_ends WHERE name >= $1 AND name < $2 AND seq > 0 ORDER BY name',
        values: [prefix, upTo(prefix)],
      })
      return rows.map((r) => r.name)
    },

    onChange(fn) {
      void listener.start()
      return listener.subscribe(fn)
    },

    locate,

    async close() {
      await eventsWritten
      await listener.close()
      await connection.close()
    },
  }
}

async function connectForMigration(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => undefined)
  try {
    await client.connect()
    return client
  } catch (error) {
    await client.end().catch(() => undefined)
    throw translate(error, url)
  }
}
