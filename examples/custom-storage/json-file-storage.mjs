// A Foundry storage written outside Foundry: every record and log of a project (events are a log
// too) in ONE JSON file, rewritten atomically on each write (temporary file, fsync, rename). One
// process writing at a time: it reloads a file another process replaced, but takes no lock across
// processes (multiProcess: false); a section that throws keeps its writes (transactional: false).
// It is a StorageDriver, the storing only: the kernel's createStorage adds key and name checks,
// events, list, logEnd and close. A project registers it in `.foundry/config.json`:
//   { "adapters": ["./json-file-storage.mjs"], "storage": { "kind": "json-file", "file": ".foundry/foundry.json" } }
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { createStorage, defineStorage } from '@foundry/kernel/adapter'
import { FoundryError } from '@foundry/kernel'

const FORMAT = 'foundry-json-file/1'
const empty = () => ({ format: FORMAT, collections: {}, revisions: {}, logs: {} })

/**
 * @param {{ file: string, durable?: boolean }} options `file`: absolute; `durable` (default true): fsync before a durable write resolves.
 * @returns {import('@foundry/kernel/adapter').StorageDriver}
 */
export function jsonFileDriver({ file, durable = true }) {
  let state = empty()
  let seen = '' // the signature of the file as this process last read or wrote it
  let queue = Promise.resolve()

  /** Before every read: reload when another process replaced the file since we last saw it. */
  const refresh = () => {
    const now = signature(file)
    if (now !== seen) [state, seen] = [now ? load(file) : empty(), now]
    return state
  }
  /** After every change: the whole state, written atomically (synchronous: no operation sees a half-saved state). */
  const save = (writeOptions) => {
    const sync = durable && writeOptions?.durability !== 'relaxed'
    mkdirSync(dirname(file), { recursive: true })
    const temporary = `${file}.${process.pid}.tmp`
    const fd = openSync(temporary, 'w')
    try {
      writeFileSync(fd, JSON.stringify(state))
      if (sync) fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temporary, file)
    if (sync) syncFolder(dirname(file))
    seen = signature(file)
  }
  const table = (collection) => (refresh().collections[collection] ??= {})
  const changed = (collection, writeOptions) => {
    state.revisions[collection] = (state.revisions[collection] ?? 0) + 1
    save(writeOptions)
  }
  const named = (names, prefix, size) =>
    Object.keys(names)
      .filter((n) => n.startsWith(prefix) && size(names[n]) > 0)
      .sort()

  return {
    name: 'json-file',
    flags: { persistent: true, multiProcess: false, changeLog: false, transactional: false },
    get: async (collection, key) => structuredClone(table(collection)[key]),
    keys: async (collection, prefix) => named(table(collection), prefix, () => 1),
    put: async (collection, key, value, writeOptions) => {
      table(collection)[key] = structuredClone(value)
      changed(collection, writeOptions)
    },
    delete: async (collection, key, writeOptions) => {
      const records = table(collection)
      if (!(key in records)) return false
      delete records[key]
      changed(collection, writeOptions)
      return true
    },
    // One section at a time in this process; not across processes (multiProcess: false).
    exclusive(fn) {
      const run = queue.then(fn, fn)
      queue = run.catch(() => {})
      return run
    },
    revision: async (collection) => String(refresh().revisions[collection] ?? 0),
    appendLog: async (name, entries, writeOptions) => {
      const log = (refresh().logs[name] ??= [])
      log.push(...entries)
      save(writeOptions)
      return log.length
    },
    readLog: async (name, cursor, limit) => {
      const log = refresh().logs[name] ?? []
      const from = Math.min(cursor, log.length)
      const entries = log.slice(from, limit === undefined ? undefined : from + limit)
      return { entries, cursor: from + entries.length }
    },
    collections: async () => named(refresh().collections, '', (records) => Object.keys(records).length),
    logs: async (prefix) => named(refresh().logs, prefix, (log) => log.length),
    locate: (collection, key) => `${file}#${collection}/${key}`,
  }
}

/** The kernel's whole `Storage` over the driver. */
export const jsonFileStorage = (options) => createStorage(jsonFileDriver(options))

/** `"storage": { "kind": "json-file", "file"?, "durable"? }`, registered by the project's config.json. */
export const jsonFileDescriptor = defineStorage({
  kind: 'json-file',
  description: 'every record in one JSON file (an example storage written outside Foundry)',
  options: {
    type: 'object',
    properties: {
      file: {
        type: 'string',
        minLength: 1,
        description: 'The JSON file, relative to the project root or absolute. Default .foundry/foundry.json',
      },
      durable: { type: 'boolean', description: 'fsync before a durable write resolves. Default true' },
    },
    additionalProperties: false,
  },
  // A driver is enough: the composition root wraps it with createStorage.
  open: (options, site) =>
    jsonFileDriver({
      ...options,
      file: options.file
        ? isAbsolute(options.file)
          ? options.file
          : join(site.root, options.file)
        : join(site.dataDir, 'foundry.json'),
    }),
})

function load(file) {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8'))
    if (parsed?.format === FORMAT) return parsed
  } catch (error) {
    throw new FoundryError('CORRUPT', `Cannot read ${file}: ${error.message}. Fix or delete it`, { cause: error })
  }
  throw new FoundryError('CORRUPT', `${file} is not a ${FORMAT} file: name another file in "storage"`)
}

/** Identifies one version of the file: a rename by any process changes it; '' when there is no file. */
function signature(file) {
  try {
    const s = statSync(file)
    return `${s.ino}:${s.size}:${s.mtimeMs}`
  } catch {
    return ''
  }
}

/** Some file systems refuse to fsync a folder; the rename is still atomic. */
function syncFolder(dir) {
  try {
    const fd = openSync(dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {}
}
