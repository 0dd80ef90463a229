import { FoundryError } from './errors.js'
import type { FoundryEvent } from './schema/event.js'
import { assertCollection, assertKey, assertLogName } from './keys.js'
import type { CollectionName, ListOptions, RecordOf, Storage } from './storage.js'

export interface MemoryStorageOptions {
  /** How many changes per collection `changes()` can reach back; older revisions answer `undefined`. Default 10 000. */
  changeLogSize?: number
}

/**
 * The reference storage: everything in memory, for tests, embedding and the conformance suites.
 * Values are copied in and out, so callers never share objects with the store. Not transactional:
 * a section that throws keeps the writes it made (the kernel orders its writes for that).
 */
export function memoryStorage(options: MemoryStorageOptions = {}): Storage {
  const limit = options.changeLogSize ?? 10_000
  const data = new Map<string, Map<string, unknown>>()
  const changeLogs = new Map<string, { base: number; keys: string[] }>()
  const logs = new Map<string, string[]>()
  const events: FoundryEvent[] = []
  let queue: Promise<unknown> = Promise.resolve()
  let closed = false

  const ensureOpen = () => {
    if (closed) throw new FoundryError('UNAVAILABLE', 'memoryStorage is closed')
  }
  const table = (c: CollectionName, key?: string) => {
    ensureOpen()
    if (key !== undefined) assertKey(c, key)
    else assertCollection(c)
    let t = data.get(c)
    if (!t) data.set(c, (t = new Map()))
    return t
  }
  const changeLog = (c: CollectionName) => {
    let log = changeLogs.get(c)
    if (!log) changeLogs.set(c, (log = { base: 0, keys: [] }))
    return log
  }
  const touch = (c: CollectionName, key: string) => {
    const log = changeLog(c)
    log.keys.push(key)
    if (log.keys.length > limit) {
      const drop = log.keys.length - limit
      log.keys.splice(0, drop)
      log.base += drop
    }
  }
  const revisionOf = (c: CollectionName) => {
    const log = changeLog(c)
    return log.base + log.keys.length
  }
  const logOf = (name: string) => {
    ensureOpen()
    assertLogName(name)
    return logs.get(name)
  }

  return {
    name: 'memory',
    flags: { persistent: false, multiProcess: false, changeLog: true, transactional: false },

    async get<C extends CollectionName>(c: C, key: string) {
      const value = table(c, key).get(key)
      return value === undefined ? undefined : (structuredClone(value) as RecordOf<C>)
    },
    async list<C extends CollectionName>(c: C, opts: ListOptions = {}) {
      const prefix = opts.prefix ?? ''
      return [...table(c).entries()]
        .filter(([k]) => k.startsWith(prefix))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([, v]) => structuredClone(v) as RecordOf<C>)
    },
    async keys(c, prefix = '') {
      return [...table(c).keys()].filter((k) => k.startsWith(prefix)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    },
    async put<C extends CollectionName>(c: C, key: string, value: RecordOf<C>) {
      table(c, key).set(key, structuredClone(value))
      touch(c, key)
    },
    async delete(c, key) {
      const had = table(c, key).delete(key)
      if (had) touch(c, key)
      return had
    },
    async collections() {
      ensureOpen()
      return [...data.entries()].filter(([, t]) => t.size > 0).map(([c]) => c as CollectionName).sort()
    },
    exclusive<T>(fn: () => Promise<T>): Promise<T> {
      ensureOpen()
      const run = queue.then(fn, fn)
      queue = run.catch(() => {})
      return run
    },
    async revision(c) {
      table(c)
      return String(revisionOf(c))
    },
    async changes(c, since) {
      table(c)
      const log = changeLog(c)
      const from = Number(since)
      if (!Number.isInteger(from) || from < log.base || from > revisionOf(c)) return undefined
      return log.keys.slice(from - log.base)
    },
    async appendEvent(event) {
      ensureOpen()
      events.push(structuredClone(event))
    },
    async readEvents() {
      return structuredClone(events)
    },
    async appendLog(name, entries) {
      let log = logOf(name)
      if (!log) logs.set(name, (log = []))
      for (const entry of entries) log.push(String(entry))
      return log.length
    },
    async readLog(name, cursor, opts = {}) {
      const log = logOf(name) ?? []
      const from = Math.max(0, Math.min(Math.floor(cursor), log.length))
      const entries = log.slice(from, opts.limit === undefined ? undefined : from + Math.max(0, opts.limit))
      return { entries, cursor: from + entries.length }
    },
    async logEnd(name) {
      return logOf(name)?.length ?? 0
    },
    async logs(prefix = '') {
      ensureOpen()
      return [...logs.entries()].filter(([name, log]) => log.length > 0 && name.startsWith(prefix)).map(([name]) => name).sort()
    },
    locate(c, key) {
      assertKey(c, key)
      return `memory://${c}/${key}`
    },
    async close() {
      closed = true
    },
  }
}
