import { AsyncLocalStorage } from 'node:async_hooks'
import { FoundryError } from '@foundry/kernel'
import pg from 'pg'
import { EXCLUSIVE_LOCK, LOCK_CLASS } from './schema.js'
import { translate } from './errors.js'
import { inline } from './inline.js'
import { redactUrl } from './url.js'

/** A statement: named ones are prepared once per connection. */
export interface Statement {
  name?: string
  text: string
  values?: unknown[]
}

/** A write sent later, with its rows handed to `then` once it ran. */
interface Deferred {
  text: string
  then(rows: pg.QueryResultRow[]): void
}

/** A read waiting for its batch. */
interface Waiter {
  resolve(value: string | null): void
  reject(error: unknown): void
}

/**
 * Statements a section asked for in one turn of the event loop (`Promise.all`: a write's revision,
 * its catalog head and its catch-up): they travel together, in the order asked, in one round trip.
 */
interface Turn {
  items: Array<{ statement(): Statement; settle(result: pg.QueryResult | undefined, error?: unknown): void }>
  /** The gathered reads of the turn, by group (see `Connection.gather`): one statement a group. */
  groups: Map<string, Map<string, Waiter[]>>
}

interface Section {
  client: pg.PoolClient
  open: boolean
  /** Whether BEGIN and the lock went out (with the section's first statement that needs an answer). */
  begun: boolean
  /** Writes waiting for the section's next statement, or its COMMIT, to travel with. */
  pending: Deferred[]
  /** The statements asked for in this turn of the event loop, not sent yet (see `join`). */
  turn: Turn | undefined
  /** What the section wrote: told to `afterWrite` once it commits. */
  touched: Set<string>
  /** The section's statements run one after another on its connection (pg 9 refuses overlapping queries on one client). */
  tail: Promise<unknown>
  state: SectionState
}

/** Revision tokens taken from the sequence when a section begins, for the writes it predicts (see `SectionState.tokens`). */
const TOKENS = 16
/** The lock in the two-integer form. */
const LOCK = `pg_advisory_xact_lock(${LOCK_CLASS}, ${EXCLUSIVE_LOCK})`
/**
 * A section's first round trip, before its first statement: the transaction, committed without
 * waiting for the WAL flush (the wait comes after the lock is released, see `exclusive`), the lock,
 * and a few revision tokens.
 */
const BEGIN = [
  'BEGIN',
  'SET LOCAL synchronous_commit = off',
  `SELECT ${LOCK}`,
  `SELECT nextval('foundry_revision_token')::text AS token FROM generate_series(1, ${TOKENS})`,
]

/**
 * What a section learnt that saves it round trips while it holds the lock (see postgresStorage):
 * records `changes()` read along with their keys, and each collection's revision after its own write.
 */
export interface SectionState {
  /** `<collection>/<key>` → the row's text (null: deleted), each served once to a `get` in the section. */
  prefetched: Map<string, string | null>
  /** Collection → revision token after the section's last write to it (its revision row is locked by that write until the commit). */
  revisions: Map<string, string>
  /** Records read in this section so far (outside `prefetched`): the first is read ahead by the next section (see `readAhead`). */
  reads: number
  /** Unused revision tokens from the sequence: a write to a collection whose revision row the section holds takes one and knows its revision before it runs. */
  tokens: string[]
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
  /**
   * One statement. Inside a section, the statements asked for in the same turn of the event loop
   * (and the reads `gather`ed with them) travel in one round trip, in the order asked.
   */
  query<R extends pg.QueryResultRow>(statement: Statement): Promise<pg.QueryResult<R>>
  /**
   * A write whose rows the caller can take later (`then`). Outside a section it runs at once. Inside,
   * it travels with the section's next statement or its COMMIT, so a section's writes cost no round
   * trip of their own; a failure then fails that statement, and the section rolls back.
   */
  defer<R extends pg.QueryResultRow>(statement: Statement, then: (rows: R[]) => void): Promise<void>
  /**
   * The value under `key`, read with every other key of `group` asked for in the same turn of the
   * event loop, by one statement (`read(keys)`, rows `{ key, value }`; a key without a row reads as
   * null); inside a section, with the section's other statements of that turn. A caller that asks for
   * many records at once (`Promise.all`: a write's candidate facts, a search's hits) pays one round
   * trip, not one each.
   */
  gather(group: string, key: string, read: (keys: string[]) => Statement): Promise<string | null>
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
  /** Reads worth sending with a section's BEGIN, the section likely to make them next; each one's rows go to its `then`. */
  readAhead?(): Array<{ statement: Statement; then(rows: pg.QueryResultRow[], state: SectionState): void }>
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose returned object holds the methods; each method is short
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
  /** Reads gathered outside any section (see `gather`). */
  const loose = new Map<string, Map<string, Waiter[]>>()

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

  /**
   * Send `statements` on the section's connection with what must go before them: BEGIN and the lock
   * when the section has not begun, then the deferred writes; one simple-protocol query, so one round
   * trip. Each deferred write's rows go to its `then`; the statements' results are returned.
   */
  async function send(s: Section, statements: Statement[]): Promise<pg.QueryResult[]> {
    const opening = !s.begun
    const ahead = opening ? (options.readAhead?.() ?? []) : []
    const before = [
      ...(opening ? [...BEGIN, ...ahead.map((a) => inline(a.statement))] : []),
      ...s.pending.map((d) => d.text),
    ]
    if (!before.length && statements.length === 1) return [await s.client.query(statements[0]!)]
    const pending = s.pending.splice(0)
    s.begun = true
    const results = (await s.client.query(
      [...before, ...statements.map(inline)].join(';\n'),
    )) as unknown as pg.QueryResult[]
    if (opening) s.state.tokens.push(...results[BEGIN.length - 1]!.rows.map((r) => r.token as string))
    ahead.forEach((a, i) => a.then(results[BEGIN.length + i]!.rows, s.state))
    const offset = opening ? BEGIN.length + ahead.length : 0
    pending.forEach((d, i) => d.then(results[offset + i]!.rows))
    return results.slice(before.length)
  }

  /**
   * The section's open turn, opened when none is: its statements are sent together once the
   * section's earlier statements are done and a turn of the event loop has passed.
   */
  function join(s: Section): Turn {
    if (s.turn) return s.turn
    const turn: Turn = { items: [], groups: new Map() }
    s.turn = turn
    void serial(s, async () => {
      await new Promise((resolve) => setImmediate(resolve))
      if (s.turn === turn) s.turn = undefined
      try {
        const results = await send(
          s,
          turn.items.map((item) => item.statement()),
        )
        turn.items.forEach((item, i) => item.settle(results[i]))
      } catch (error) {
        for (const item of turn.items) item.settle(undefined, error)
      }
    })
    return turn
  }

  /** The waiters of `group` in a section's turn: one statement for the turn's keys. */
  function joinGroup(turn: Turn, group: string, read: (keys: string[]) => Statement): Map<string, Waiter[]> {
    let batch = turn.groups.get(group)
    if (batch) return batch
    const mine = new Map<string, Waiter[]>()
    turn.groups.set(group, (batch = mine))
    turn.items.push({
      statement: () => read([...mine.keys()]),
      settle: (result, error) => settleGroup(mine, result, error),
    })
    return batch
  }

  /** The waiters of `group` outside a section: read together a turn of the event loop later. */
  function looseGroup(group: string, read: (keys: string[]) => Statement): Map<string, Waiter[]> {
    let batch = loose.get(group)
    if (batch) return batch
    const mine = new Map<string, Waiter[]>()
    loose.set(group, (batch = mine))
    void (async () => {
      await new Promise((resolve) => setImmediate(resolve))
      if (loose.get(group) === mine) loose.delete(group)
      try {
        settleGroup(mine, await pool.query(read([...mine.keys()])))
      } catch (error) {
        settleGroup(mine, undefined, error)
      }
    })()
    return batch
  }

  function settleGroup(batch: Map<string, Waiter[]>, result: pg.QueryResult | undefined, error?: unknown): void {
    if (!result) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(fail(error))
      return
    }
    const found = new Map(result.rows.map((r) => [r.key as string, r.value as string]))
    for (const [k, waiters] of batch) for (const w of waiters) w.resolve(found.get(k) ?? null)
  }

  /** Run `task` on the section's connection after its earlier statements. */
  function serial<T>(s: Section, task: () => Promise<T>): Promise<T> {
    const run = s.tail.then(task)
    s.tail = run.catch(() => undefined)
    return run
  }

  /**
   * End the section: its deferred writes and COMMIT in one round trip (a section that sent nothing
   * still waits for the lock, once). Returns whether the transaction wrote anything.
   */
  async function commit(s: Section): Promise<boolean> {
    if (!s.begun && !s.pending.length) {
      await s.client.query(`SELECT ${LOCK}`)
      return false
    }
    const [found] = await send(s, [
      { text: 'SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS wrote' },
      { text: 'COMMIT' },
    ])
    return found!.rows[0]!.wrote === true
  }

  /**
   * One section, in this process's turn: `fn` in the section's context, then the commit. Resolves with
   * the connection still checked out (the caller waits for durability on it, then releases it).
   */
  async function run<T>(fn: () => Promise<T>): Promise<{ value: T; client: pg.PoolClient; wrote: boolean }> {
    let client: pg.PoolClient
    try {
      client = await pool.connect()
    } catch (error) {
      throw fail(error)
    }
    const state: SectionState = { prefetched: new Map(), revisions: new Map(), reads: 0, tokens: [] }
    const s: Section = {
      client,
      open: true,
      begun: false,
      pending: [],
      turn: undefined,
      touched: new Set(),
      tail: Promise.resolve(),
      state,
    }
    try {
      const value = await context.run(s, fn)
      s.open = false
      await s.tail
      const wrote = await commit(s)
      for (const what of s.touched) options.afterWrite(what)
      return { value, client, wrote }
    } catch (error) {
      s.open = false
      let broken: Error | undefined
      try {
        await s.tail
        if (s.begun) await client.query('ROLLBACK')
      } catch (rollback) {
        broken = rollback as Error // the connection is gone: do not return it to the pool
      }
      client.release(broken)
      throw fail(error)
    }
  }

  return {
    where,

    async query<R extends pg.QueryResultRow>(statement: Statement) {
      if (closed) throw new FoundryError('UNAVAILABLE', `postgresStorage for ${where} is closed`)
      const s = section()
      try {
        if (!s) return await pool.query<R>(statement)
        return await new Promise<pg.QueryResult<R>>((resolve, reject) =>
          join(s).items.push({
            statement: () => statement,
            settle: (result, error) => (result ? resolve(result as pg.QueryResult<R>) : reject(error)),
          }),
        )
      } catch (error) {
        throw fail(error)
      }
    },

    async defer<R extends pg.QueryResultRow>(statement: Statement, then: (rows: R[]) => void) {
      const s = section()
      if (!s) return then((await this.query<R>(statement)).rows)
      await serial(s, async () => void s.pending.push({ text: inline(statement), then: then as Deferred['then'] }))
    },

    async gather(group, key, read) {
      if (closed) throw new FoundryError('UNAVAILABLE', `postgresStorage for ${where} is closed`)
      const s = section()
      const batch = s ? joinGroup(join(s), group, read) : looseGroup(group, read)
      return new Promise<string | null>((resolve, reject) => {
        const list = batch.get(key)
        if (list) list.push({ resolve, reject })
        else batch.set(key, [{ resolve, reject }])
      })
    },

    inSection: () => section() !== undefined,
    sectionState: () => section()?.state,

    wrote(what) {
      const s = section()
      if (s) s.touched.add(what)
      else options.afterWrite(what)
    },

    async exclusive<T>(fn: () => Promise<T>): Promise<T> {
      if (section())
        throw new FoundryError(
          'UNSUPPORTED',
          `exclusive sections on ${where} do not nest: call the storage directly inside the section`,
        )
      if (closed) throw new FoundryError('UNAVAILABLE', `postgresStorage for ${where} is closed`)
      const { value, client, wrote } = await enqueue(() => run(fn))
      // The commit did not wait for the WAL flush, so the lock was free for the next section at once.
      // Durability is waited for here, outside the lock: a transaction that takes an id commits
      // synchronously, flushing the WAL up to its own commit record, so up to the section's (WAL is one
      // sequence). Writers flushing at once share one flush: the group commit PostgreSQL does itself.
      let broken: Error | undefined
      try {
        if (wrote) await client.query('SELECT pg_current_xact_id()')
        return value
      } catch (error) {
        broken = error as Error
        throw fail(error)
      } finally {
        client.release(broken)
      }
    },

    async close() {
      if (closed) return
      closed = true
      await queue
      await pool.end()
    },
  }
}
