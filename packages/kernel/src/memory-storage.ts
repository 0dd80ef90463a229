import { createStorage } from './create-storage.js'
import type { CollectionName, ListOptions, RecordOf, Storage } from './storage.js'
import type { StorageDriver } from './storage-driver.js'

export interface MemoryStorageOptions {
  /** How many changes per collection `changes()` can reach back; older revisions answer `undefined`. Default 10 000. */
  changeLogSize?: number
}

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The reference storage: everything in memory, for tests, embedding and the conformance suites.
 * Values are copied in and out, so callers never share objects with the store. Not transactional:
 * a section that throws keeps the writes it made (the kernel orders its writes for that).
 */
export function memoryStorage(options: MemoryStorageOptions = {}): Storage {
  return createStorage(memoryDriver(options))
}

/** The reference `StorageDriver`, what `memoryStorage` wraps: the required methods, `list` (one pass, for speed) and little more, so the kernel's defaults (`logEnd`, `locate`) are the ones checked. */
export function memoryDriver(options: MemoryStorageOptions = {}): StorageDriver {
  const limit = options.changeLogSize ?? 10_000
  const data = new Map<string, Map<string, unknown>>()
  const changeLogs = new Map<string, { base: number; keys: string[] }>()
  const logs = new Map<string, string[]>()
  let queue: Promise<unknown> = Promise.resolve()

  const table = (c: CollectionName) => {
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

  return {
    name: 'memory',
    flags: { persistent: false, multiProcess: false, changeLog: true, transactional: false },

    async get<C extends CollectionName>(c: C, key: string) {
      const value = table(c).get(key)
      return value === undefined ? undefined : (structuredClone(value) as RecordOf<C>)
    },
    async list<C extends CollectionName>(c: C, options: ListOptions) {
      const prefix = options.prefix ?? ''
      return [...table(c).entries()]
        .filter(([k]) => k.startsWith(prefix))
        .sort(([a], [b]) => byKey(a, b))
        .map(([, v]) => structuredClone(v) as RecordOf<C>)
    },
    async keys(c, prefix) {
      return [...table(c).keys()].filter((k) => k.startsWith(prefix)).sort(byKey)
    },
    async put(c, key, value) {
      table(c).set(key, structuredClone(value))
      touch(c, key)
    },
    async delete(c, key) {
      const had = table(c).delete(key)
      if (had) touch(c, key)
      return had
    },
    async collections() {
      return [...data.entries()]
        .filter(([, t]) => t.size > 0)
        .map(([c]) => c as CollectionName)
        .sort()
    },
    exclusive<T>(fn: () => Promise<T>): Promise<T> {
      const run = queue.then(fn, fn)
      queue = run.catch(() => {})
      return run
    },
    async revision(c) {
      return String(revisionOf(c))
    },
    async changes(c, since) {
      const log = changeLog(c)
      const from = Number(since)
      if (!Number.isInteger(from) || from < log.base || from > revisionOf(c)) return undefined
      return log.keys.slice(from - log.base)
    },
    async appendLog(name, entries) {
      let log = logs.get(name)
      if (!log) logs.set(name, (log = []))
      for (const entry of entries) log.push(entry)
      return log.length
    },
    async readLog(name, cursor, count) {
      const log = logs.get(name) ?? []
      const from = Math.min(cursor, log.length)
      const entries = log.slice(from, count === undefined ? undefined : from + count)
      return { entries, cursor: from + entries.length }
    },
    async logs(prefix) {
      return [...logs.entries()]
        .filter(([name, log]) => log.length > 0 && name.startsWith(prefix))
        .map(([name]) => name)
        .sort()
    },
    async deleteLog(name) {
      return (logs.get(name)?.length ?? 0) > 0 && logs.delete(name)
    },
  }
}
