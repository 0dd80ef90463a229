// A third Foundry storage, written outside Foundry: every record, log and event of a project in ONE
// JSON file. It keeps everything in memory and rewrites the file on each write (a temporary file,
// fsync, rename: a reader sees the old file or the new one, never half of either). Small projects
// only, and one process writing at a time: it reloads the file when another process has replaced
// it, but it takes no lock across processes (flags.multiProcess: false), and a section that throws
// keeps what it wrote (flags.transactional: false).
//
// It exports `jsonFileDescriptor`; a project registers it in `.foundry/config.json` with no change
// to any Foundry package:
//   { "adapters": ["./json-file-storage.mjs"], "storage": { "kind": "json-file", "file": ".foundry/foundry.json" } }
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { assertCollection, assertKey, assertLogName, defineStorage, FoundryError } from '@foundry/kernel'

const FORMAT = 'foundry-json-file/1'

/**
 * A Storage in one JSON file.
 * @param {{ file: string, durable?: boolean }} options `file`: absolute; `durable` (default true): fsync before a durable write resolves.
 * @returns {import('@foundry/kernel').Storage}
 */
export function jsonFileStorage(options) {
  const { file } = options
  const durable = options.durable ?? true
  let state = empty()
  let seen = '' // the signature of the file as this process last read or wrote it
  let closed = false
  let queue = Promise.resolve()

  /** Before every operation: reload when another process replaced the file since we last saw it. */
  const refresh = () => {
    if (closed) throw new FoundryError('UNAVAILABLE', `jsonFileStorage is closed (${file})`)
    const now = signature(file)
    if (now === seen) return
    state = now ? load(file) : empty()
    seen = now
  }
  /** After every change: the whole state, written atomically. Synchronous, so no other operation sees a half-saved state. */
  const save = (writeOptions) => {
    const sync = durable && (writeOptions?.durability ?? 'durable') === 'durable'
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
  const table = (collection, key) => {
    if (key === undefined) assertCollection(collection)
    else assertKey(collection, key)
    refresh()
    return (state.collections[collection] ??= {})
  }
  const bump = (collection) => (state.revisions[collection] = (state.revisions[collection] ?? 0) + 1)
  const sortedKeys = (records, prefix = '') => Object.keys(records).filter((k) => k.startsWith(prefix)).sort()
  const logOf = (name) => {
    assertLogName(name)
    refresh()
    return state.logs[name]
  }

  return {
    name: 'json-file',
    flags: { persistent: true, multiProcess: false, changeLog: false, transactional: false },

    async get(collection, key) {
      const value = table(collection, key)[key]
      return value === undefined ? undefined : structuredClone(value)
    },
    async list(collection, listOptions = {}) {
      const records = table(collection)
      return sortedKeys(records, listOptions.prefix).map((k) => structuredClone(records[k]))
    },
    async keys(collection, prefix) {
      return sortedKeys(table(collection), prefix)
    },
    async put(collection, key, value, writeOptions) {
      table(collection, key)[key] = structuredClone(value)
      bump(collection)
      save(writeOptions)
    },
    async delete(collection, key, writeOptions) {
      const records = table(collection, key)
      if (!(key in records)) return false
      delete records[key]
      bump(collection)
      save(writeOptions)
      return true
    },
    async collections() {
      refresh()
      return Object.keys(state.collections).filter((c) => Object.keys(state.collections[c]).length > 0).sort()
    },
    // One section at a time in this process; not across processes (multiProcess: false).
    exclusive(fn) {
      if (closed) return Promise.reject(new FoundryError('UNAVAILABLE', `jsonFileStorage is closed (${file})`))
      const run = queue.then(fn, fn)
      queue = run.catch(() => {})
      return run
    },
    async revision(collection) {
      table(collection)
      return String(state.revisions[collection] ?? 0)
    },
    async appendEvent(event) {
      refresh()
      state.events.push(structuredClone(event))
      save({ durability: 'relaxed' }) // telemetry: losing the last events to a power cut is acceptable
    },
    async readEvents() {
      refresh()
      return structuredClone(state.events)
    },
    async appendLog(name, entries, writeOptions) {
      const log = logOf(name) ?? (state.logs[name] = [])
      log.push(...entries.map(String))
      save(writeOptions)
      return log.length
    },
    async readLog(name, cursor, readOptions = {}) {
      const log = logOf(name) ?? []
      const from = Math.max(0, Math.min(Math.floor(cursor), log.length))
      const entries = log.slice(from, readOptions.limit === undefined ? undefined : from + Math.max(0, readOptions.limit))
      return { entries, cursor: from + entries.length }
    },
    async logEnd(name) {
      return logOf(name)?.length ?? 0
    },
    async logs(prefix = '') {
      refresh()
      return Object.keys(state.logs).filter((n) => n.startsWith(prefix) && state.logs[n].length > 0).sort()
    },
    locate(collection, key) {
      assertKey(collection, key)
      return `${file}#${collection}/${key}`
    },
    async close() {
      closed = true
    },
  }
}

/** `"storage": { "kind": "json-file", "file"?, "durable"? }`: the descriptor the project's config.json registers. */
export const jsonFileDescriptor = defineStorage({
  kind: 'json-file',
  description: 'every record in one JSON file (an example storage written outside Foundry)',
  options: {
    type: 'object',
    properties: {
      file: { type: 'string', minLength: 1, description: 'The JSON file, relative to the project root or absolute. Default .foundry/foundry.json' },
      durable: { type: 'boolean', description: 'fsync before a durable write resolves. Default true' },
    },
    additionalProperties: false,
  },
  open: (options, site) =>
    jsonFileStorage({
      file: options.file ? (isAbsolute(options.file) ? options.file : join(site.root, options.file)) : join(site.dataDir, 'foundry.json'),
      ...(options.durable !== undefined && { durable: options.durable }),
    }),
})

function empty() {
  return { format: FORMAT, collections: {}, revisions: {}, logs: {}, events: [] }
}

function load(file) {
  let parsed
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new FoundryError('CORRUPT', `Cannot read ${file}: ${error.message}`, { cause: error })
  }
  if (parsed?.format !== FORMAT) throw new FoundryError('CORRUPT', `${file} is not a ${FORMAT} file`)
  return parsed
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

function syncFolder(dir) {
  try {
    const fd = openSync(dir, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  } catch {
    // Some file systems refuse to fsync a folder; the rename is still atomic.
  }
}
