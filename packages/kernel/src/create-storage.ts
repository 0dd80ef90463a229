import { FoundryError, isFoundryError } from './errors.js'
import { assertCollection, assertKey, assertLogName, COLLECTIONS } from './keys.js'
import { decodeEventText } from './record-text.js'
import type { FoundryEvent } from './schema/event.js'
import type { CollectionName, ListOptions, RecordOf, Storage, StorageEntry, WriteOptions } from './storage.js'
import { EVENTS_LOG, type StorageDriver } from './storage-driver.js'

/** The members a driver must have, functions all but `name` and `flags`. */
export const DRIVER_METHODS = ['get', 'put', 'delete', 'keys', 'exclusive', 'revision', 'appendLog', 'readLog'] as const

/** The required members `value` lacks, as a `StorageDriver` (empty when it has them all). */
export function missingDriverMembers(value: unknown): string[] {
  const has = (value ?? {}) as Record<string, unknown>
  return [
    ...(typeof has.name === 'string' ? [] : ['name']),
    ...(typeof has.flags === 'object' && has.flags !== null ? [] : ['flags']),
    ...DRIVER_METHODS.filter((method) => typeof has[method] !== 'function'),
  ]
}

/**
 * The kernel's `Storage` over a driver: what every adapter used to repeat, done once. Keys, collection
 * and log names are checked before the driver sees them; events are entries of the reserved
 * `EVENTS_LOG`; `list`, `logEnd`, `logs`, `collections` and `locate` have defaults built on the
 * required methods; `close` is idempotent, and every call after it throws UNAVAILABLE. Throws
 * INVALID_INPUT naming what a driver lacks.
 */
export function createStorage(driver: StorageDriver): Storage {
  const missing = missingDriverMembers(driver)
  if (missing.length)
    throw new FoundryError(
      'INVALID_INPUT',
      `Storage driver ${JSON.stringify((driver as { name?: unknown })?.name ?? '?')} lacks ${missing.join(', ')}: a driver needs name, flags, ${DRIVER_METHODS.join(', ')}`,
    )
  const { name } = driver
  let closing: Promise<void> | undefined

  const ensureOpen = () => {
    if (closing) throw new FoundryError('UNAVAILABLE', `The ${name} storage is closed: open it again to use it`)
  }
  const collection = (c: CollectionName) => {
    ensureOpen()
    assertCollection(c)
  }
  const record = (c: CollectionName, key: string) => {
    ensureOpen()
    assertKey(c, key)
  }
  const log = (name: string) => {
    ensureOpen()
    assertLogName(name)
  }
  const locate = (c: CollectionName, key: string) => driver.locate?.(c, key) ?? `${name}://${c}/${key}`
  const logEnd = (name: string) =>
    driver.logEnd?.(name) ?? driver.readLog(name, Number.MAX_SAFE_INTEGER, 0).then((page) => page.cursor)

  const storage: Storage = {
    name,
    flags: driver.flags,

    async get<C extends CollectionName>(c: C, key: string) {
      record(c, key)
      return driver.get(c, key)
    },
    async list<C extends CollectionName>(c: C, options: ListOptions = {}) {
      collection(c)
      return driver.list ? driver.list(c, options) : listByKeys(driver, c, options, locate)
    },
    async keys(c, prefix = '', onProblem?) {
      collection(c)
      return driver.keys(c, prefix, onProblem)
    },
    async put<C extends CollectionName>(c: C, key: string, value: RecordOf<C>, options?: WriteOptions) {
      record(c, key)
      return driver.put(c, key, value, options)
    },
    async putMany<C extends CollectionName>(c: C, entries: ReadonlyArray<StorageEntry<C>>, options?: WriteOptions) {
      collection(c)
      if (!Array.isArray(entries))
        throw new FoundryError(
          'INVALID_INPUT',
          `putMany's entries must be an array of { key, value }; got ${typeof entries}`,
        )
      for (const entry of entries) assertKey(c, entry?.key)
      if (entries.length === 0) return
      if (driver.putMany) return driver.putMany(c, entries, options)
      for (const { key, value } of entries) await driver.put(c, key, value, options)
    },
    async delete(c, key, options) {
      record(c, key)
      return driver.delete(c, key, options)
    },
    async collections() {
      ensureOpen()
      return driver.collections ? driver.collections() : kernelCollections(driver)
    },
    async exclusive<T>(fn: () => Promise<T>) {
      ensureOpen()
      return driver.exclusive(fn)
    },
    async revision(c) {
      collection(c)
      return driver.revision(c)
    },
    async appendEvent(event: FoundryEvent) {
      ensureOpen()
      // Telemetry: a power loss may take the last events, never half of one.
      await driver.appendLog(EVENTS_LOG, [JSON.stringify(event)], { durability: 'relaxed' })
    },
    async readEvents() {
      ensureOpen()
      const { entries } = await driver.readLog(EVENTS_LOG, 0)
      return entries.map(decodeEventText).filter((event): event is FoundryEvent => event !== undefined)
    },
    async appendLog(name, entries, options) {
      log(name)
      if (!Array.isArray(entries))
        throw new FoundryError(
          'INVALID_INPUT',
          `appendLog's entries must be an array of strings; got ${typeof entries}. Wrap a single entry: [entry]`,
        )
      if (entries.length === 0) return logEnd(name)
      return driver.appendLog(name, entries.map(String), options)
    },
    async readLog(name, cursor, options = {}) {
      log(name)
      const from = Math.max(0, Math.floor(count('cursor', cursor)))
      const limit =
        options.limit === undefined || options.limit === Infinity
          ? undefined
          : Math.max(0, Math.floor(count('limit', options.limit)))
      return driver.readLog(name, from, limit)
    },
    async logEnd(name) {
      log(name)
      return logEnd(name)
    },
    async logs(prefix = '') {
      ensureOpen()
      return ((await driver.logs?.(prefix)) ?? []).filter((found) => found !== EVENTS_LOG)
    },
    ...(driver.deleteLog && {
      async deleteLog(name: string) {
        log(name)
        return driver.deleteLog!(name)
      },
    }),
    locate(c, key) {
      assertKey(c, key)
      return locate(c, key)
    },
    close() {
      return (closing ??= Promise.resolve().then(() => driver.close?.()))
    },
  }
  withOptional(driver, storage, collection, ensureOpen)
  return storage
}

/** `list` without the driver's: every key, then each record; one that cannot be read is reported and left out. */
async function listByKeys<C extends CollectionName>(
  driver: StorageDriver,
  c: C,
  options: ListOptions,
  locate: Storage['locate'],
): Promise<RecordOf<C>[]> {
  const records: RecordOf<C>[] = []
  for (const key of await driver.keys(c, options.prefix ?? '', options.onProblem)) {
    try {
      const value = await driver.get(c, key)
      if (value !== undefined) records.push(value) // deleted since it was listed
    } catch (error) {
      if (!isFoundryError(error, 'CORRUPT')) throw error
      options.onProblem?.({ collection: c, key, location: locate(c, key), message: error.message })
    }
  }
  return records
}

/** `collections` without the driver's: the kernel's collections that hold a key. */
async function kernelCollections(driver: StorageDriver): Promise<CollectionName[]> {
  const found: CollectionName[] = []
  for (const c of COLLECTIONS) if ((await driver.keys(c, '')).length) found.push(c)
  return found.sort()
}

/** The optional abilities, checked like the rest, only when the driver has them. */
function withOptional(
  driver: StorageDriver,
  storage: Storage,
  collection: (c: CollectionName) => void,
  ensureOpen: () => void,
): void {
  if (driver.changes) {
    const changes = driver.changes.bind(driver)
    storage.changes = async (c, since) => {
      collection(c)
      return changes(c, since)
    }
  }
  if (driver.onChange) {
    const onChange = driver.onChange.bind(driver)
    storage.onChange = (listener) => {
      ensureOpen()
      return onChange(listener)
    }
  }
}

/** A readLog cursor or limit: fractions are floored and negatives read as 0 (by the caller); NaN or a non-number is refused. */
function count(field: 'cursor' | 'limit', value: number): number {
  if (typeof value !== 'number' || Number.isNaN(value))
    throw new FoundryError(
      'INVALID_INPUT',
      `readLog's ${field} must be a number (${field === 'cursor' ? '0, or a cursor appendLog, readLog or logEnd returned' : 'how many entries to read at most'}); got ${JSON.stringify(value)}`,
    )
  return value
}
