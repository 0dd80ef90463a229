import { FoundryError } from './errors.js'
import type { FoundryEvent } from './schema/event.js'
import { assertKey, COLLECTIONS } from './keys.js'
import type { CollectionName, Collections, ListOptions, Storage } from './storage.js'

export interface MemoryStorageOptions {
  /** How many changes per collection `changes()` can reach back; older revisions answer `undefined`. Default 10 000. */
  changeLogSize?: number
}

/**
 * The reference storage: everything in memory, for tests, embedding and the conformance suites.
 * Values are copied in and out, so callers never share objects with the store.
 */
export function memoryStorage(options: MemoryStorageOptions = {}): Storage {
  const limit = options.changeLogSize ?? 10_000
  const data = new Map<CollectionName, Map<string, unknown>>(COLLECTIONS.map((c) => [c, new Map()]))
  const logs = new Map<CollectionName, { base: number; keys: string[] }>(COLLECTIONS.map((c) => [c, { base: 0, keys: [] }]))
  const events: FoundryEvent[] = []
  let queue: Promise<unknown> = Promise.resolve()
  let closed = false

  const table = (c: CollectionName, key?: string) => {
    if (closed) throw new FoundryError('UNAVAILABLE', 'memoryStorage is closed')
    if (key !== undefined) assertKey(c, key)
    const t = data.get(c)
    if (!t) throw new FoundryError('INVALID_INPUT', `Unknown collection "${c}"; use one of ${COLLECTIONS.join(', ')}`)
    return t
  }
  const touch = (c: CollectionName, key: string) => {
    const log = logs.get(c)!
    log.keys.push(key)
    if (log.keys.length > limit) {
      const drop = log.keys.length - limit
      log.keys.splice(0, drop)
      log.base += drop
    }
  }
  const revisionOf = (c: CollectionName) => {
    const log = logs.get(c)!
    return log.base + log.keys.length
  }

  return {
    name: 'memory',
    flags: { persistent: false, multiProcess: false, changeLog: true },

    async get<C extends CollectionName>(c: C, key: string) {
      const value = table(c, key).get(key)
      return value === undefined ? undefined : (structuredClone(value) as Collections[C])
    },
    async list<C extends CollectionName>(c: C, opts: ListOptions = {}) {
      const prefix = opts.prefix ?? ''
      return [...table(c).entries()]
        .filter(([k]) => k.startsWith(prefix))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([, v]) => structuredClone(v) as Collections[C])
    },
    async put<C extends CollectionName>(c: C, key: string, value: Collections[C]) {
      table(c, key).set(key, structuredClone(value))
      touch(c, key)
    },
    async delete(c, key) {
      const had = table(c, key).delete(key)
      if (had) touch(c, key)
      return had
    },
    exclusive<T>(fn: () => Promise<T>): Promise<T> {
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
      const log = logs.get(c)!
      const from = Number(since)
      if (!Number.isInteger(from) || from < log.base || from > revisionOf(c)) return undefined
      return log.keys.slice(from - log.base)
    },
    async appendEvent(event) {
      if (closed) throw new FoundryError('UNAVAILABLE', 'memoryStorage is closed')
      events.push(structuredClone(event))
    },
    async readEvents() {
      return structuredClone(events)
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
