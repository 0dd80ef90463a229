import { rmdirSync, statSync, writeFileSync } from 'node:fs'
import { unlink } from 'node:fs/promises'
import { basename, dirname, join, sep } from 'node:path'
import {
  assertKey,
  COLLECTIONS,
  EventSchema,
  FoundryError,
  validator,
  type CollectionName,
  type Collections,
  type FoundryEvent,
  type ListOptions,
  type Storage,
} from '@foundry/kernel'
import { sweepTemps, syncFolder, writeAtomic } from './atomic.js'
import { CODECS } from './codecs.js'
import { FormatError } from './format-error.js'
import { createGuard, isMissing } from './guard.js'
import { appendLine, readText } from './io.js'
import { createJournal } from './journal.js'
import { INDEX_META_KEY, createLayout } from './layout.js'
import { createSectionLock, type LockOptions } from './lock.js'
import { fileIdentity, openRecordCache, type RecordCache } from './record-cache.js'
import { scan } from './scan.js'

export interface FsStorageOptions {
  /** The project root. The data lives in `<root>/.foundry`. */
  root: string
  /** The data folder: a name or path relative to `root`, or an absolute path. Default `.foundry`. */
  folder?: string
  /**
   * fsync each record file and its folder before `put` and `delete` resolve, so a power loss keeps
   * every write that was reported done. Default true. Cache files (retriever snapshots, journals)
   * are never fsynced: they are rebuilt when lost. Turn off only for throwaway data (tests, seeding).
   */
  durable?: boolean
  /** The exclusive section's lock: when a crashed holder's lock is broken, and how long to wait. */
  lock?: LockOptions
}

const GITIGNORE = '# Local to this machine: telemetry and caches (rebuilt when missing).\nmetrics/\ncache/\n'
const NOUN: Record<CollectionName, string> = { facts: 'fact', runbooks: 'runbook', contracts: 'contract', artifacts: 'artifact', meta: 'meta' }
const eventCheck = validator(EventSchema)

/**
 * Storage on the `.foundry` folder: human-readable files a team reviews in git, safe with many
 * processes writing at once. Records are replaced atomically (temporary file, fsync, rename); the
 * exclusive section is a lock shared by every process; events are appended one O_APPEND write a
 * line; revisions and change lists come from per-collection journals (journal.ts). No path leaves
 * the data folder: keys pass `assertKey`, and links out of the folder are refused.
 */
export function fsStorage(options: FsStorageOptions): Storage {
  const layout = createLayout(options.root, options.folder)
  const guard = createGuard(layout.base)
  const durable = options.durable ?? true
  const lock = createSectionLock(layout.lock, options.lock)
  const journal = createJournal({ journal: layout.journal, watched: layout.watched, prepare: () => void guard.folder(layout.cache) })
  let prepared = false
  let closed = false

  const open = (collection?: CollectionName, key?: string) => {
    if (closed) throw new FoundryError('UNAVAILABLE', `fsStorage on ${layout.base} is closed`)
    if (collection !== undefined && !COLLECTIONS.includes(collection))
      throw new FoundryError('INVALID_INPUT', `Unknown collection "${collection}"; use one of ${COLLECTIONS.join(', ')}`)
    if (key !== undefined) assertKey(collection!, key)
  }

  /** Before the first write: the data folder and its `.gitignore` (never overwritten: it is the team's file once it exists). */
  const prepare = () => {
    if (prepared) return
    guard.folder(layout.base)
    try {
      writeFileSync(layout.gitignore, GITIGNORE, { flag: 'wx' })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    prepared = true
  }

  /** Cache files are rebuilt when lost, so they skip fsync; records and INDEX.md do not. */
  const isDurable = (collection: CollectionName, key: string) => durable && (collection !== 'meta' || key === INDEX_META_KEY)

  /** The record in the file at `real` (a resolved path inside the folder), or undefined when it is gone. */
  async function decode<C extends CollectionName>(collection: C, key: string, path: string, real: string): Promise<Collections[C] | undefined> {
    let text: string
    try {
      text = await readText(real)
    } catch (error) {
      if (isMissing(error)) return undefined // deleted since it was found
      if ((error as NodeJS.ErrnoException).code !== 'EISDIR') throw new FormatError((error as Error).message)
      if (collection === 'meta') return undefined // `a` when only `a/b` exists: a folder of names, not a record
      throw new FormatError('it is a folder, not a file')
    }
    return CODECS[collection].decode(text, { key, file: basename(path), modified: () => statSync(real).mtime }) as Collections[C]
  }

  /** The parsed-record cache, for the markdown collections; none when its file cannot be trusted. */
  const recordCache = <T>(collection: CollectionName): RecordCache<T> | undefined => {
    if (collection !== 'facts' && collection !== 'runbooks') return undefined
    try {
      guard.existing(layout.records(collection))
    } catch {
      return undefined // a link out of the folder: parse everything rather than trust it
    }
    return openRecordCache<T>(layout.records(collection), () => guard.folder(layout.cache))
  }

  const corrupt = (collection: CollectionName, key: string, path: string, error: unknown) =>
    error instanceof FormatError
      ? new FoundryError('CORRUPT', `Cannot read ${NOUN[collection]} ${key} from ${path}: ${error.message}. Fix the file or delete it.`, { cause: error })
      : error

  /** Remove what killed writers left in `dirs`; a sweep in a watched folder is journaled, so it breaks no change chain. */
  const sweep = (collection: CollectionName, temps: Array<{ dir: string; names: string[] }>) => {
    for (const { dir, names } of temps) {
      const before = journal.state(collection)
      if (sweepTemps(dir, names) > 0 && before !== journal.state(collection)) journal.record(collection, 'tmp', '-', [before, journal.state(collection)])
    }
  }

  return {
    name: 'fs',
    flags: { persistent: true, multiProcess: true, changeLog: true },

    async get<C extends CollectionName>(collection: C, key: string) {
      open(collection, key)
      const path = layout.file(collection, key)
      try {
        const real = guard.existing(path)
        return real === undefined ? undefined : await decode(collection, key, path, real)
      } catch (error) {
        throw corrupt(collection, key, path, error)
      }
    },

    async list<C extends CollectionName>(collection: C, listOptions: ListOptions = {}) {
      open(collection)
      const found = scan(collection, listOptions.prefix ?? '', layout, guard)
      const report = (key: string, location: string, message: string) => listOptions.onProblem?.({ collection, key, location, message })
      for (const misfit of found.misfits) report(misfit.key, misfit.path, misfit.message)
      const cache = recordCache<Collections[C]>(collection)
      const records: Collections[C][] = []
      for (const { key, path, real: plain } of found.found) {
        try {
          const real = plain ?? guard.existing(path)
          if (real === undefined) continue
          const identity = cache && fileIdentity(real) // taken before the read: a newer file is never cached as this one
          const cached = identity && cache.lookup(key, identity)
          if (cached) {
            records.push(cached)
            continue
          }
          const record = await decode(collection, key, path, real)
          if (record === undefined) continue
          records.push(record)
          if (identity) cache.remember(key, identity, record)
        } catch (error) {
          report(key, path, error instanceof FormatError ? error.message : (error as Error).message)
        }
      }
      if (found.temps.length) sweep(collection, found.temps)
      if (cache && !listOptions.prefix) await cache.save(new Set(found.found.map((f) => f.key))).catch(() => {}) // only a cache
      return records
    },

    async put<C extends CollectionName>(collection: C, key: string, value: Collections[C]) {
      open(collection, key)
      const text = CODECS[collection].encode(value, key)
      prepare()
      const path = layout.file(collection, key)
      const states = [journal.state(collection)]
      const created = () => void states.push(journal.state(collection))
      for (let attempt = 0; ; attempt++) {
        // A link in the record's place is refused when it leads out, else replaced (never written
        // through: a put of one key changes that key's file only).
        guard.existing(path)
        const target = join(guard.folder(dirname(path)), basename(path))
        try {
          await writeAtomic(dirname(target), basename(target), text, isDurable(collection, key), created)
          break
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EISDIR')
            throw new FoundryError('CONFLICT', `Cannot store ${NOUN[collection]} ${key}: ${path} is a folder. A name cannot be both a record and a folder of records.`)
          // Another process pruned the (empty) folder between our check and our write: make it again.
          if (!isMissing(error) || attempt > 2) throw error
        }
      }
      states.push(journal.state(collection))
      journal.record(collection, 'put', key, distinct(states))
    },

    async delete(collection, key) {
      open(collection, key)
      const path = layout.file(collection, key)
      const dir = guard.existing(dirname(path))
      if (dir === undefined) return false
      const before = journal.state(collection)
      try {
        await unlink(join(dir, basename(path))) // a link is removed itself, never what it points to
      } catch (error) {
        if (isMissing(error)) return false
        throw error
      }
      if (isDurable(collection, key)) await syncFolder(dir)
      if (collection === 'meta') prune(dir, guard.existing(layout.folder('meta')))
      journal.record(collection, 'del', key, distinct([before, journal.state(collection)]))
      return true
    },

    async exclusive<T>(fn: () => Promise<T>): Promise<T> {
      open()
      prepare()
      guard.folder(layout.cache)
      return lock.run(fn)
    },

    async revision(collection) {
      open(collection)
      return journal.revision(collection)
    },

    async changes(collection, since) {
      open(collection)
      guard.existing(layout.cache) // refuses a cache folder that links out
      return journal.changes(collection, since)
    },

    async appendEvent(event: FoundryEvent) {
      open()
      prepare()
      guard.folder(dirname(layout.events))
      guard.existing(layout.events)
      appendLine(layout.events, JSON.stringify(event))
    },

    async readEvents() {
      open()
      const real = guard.existing(layout.events)
      if (real === undefined) return []
      const events: FoundryEvent[] = []
      for (const line of (await readText(real)).split('\n')) {
        if (!line.trim()) continue
        try {
          const event: unknown = JSON.parse(line)
          if (eventCheck.check(event)) events.push(event)
        } catch {
          // a line cut short by a crash: skipped, as the contract allows
        }
      }
      return events
    },

    locate(collection, key) {
      assertKey(collection, key)
      return layout.file(collection, key)
    },

    async close() {
      closed = true
    },
  }
}

/** Consecutive equal states say nothing more: `5,5,7` is `5,7`. */
function distinct(states: bigint[]): bigint[] {
  return states.filter((s, i) => i === 0 || s !== states[i - 1])
}

/** Remove folders left empty below `stop` (a snapshot build's folder once its last part is gone). */
function prune(dir: string, stop: string | undefined) {
  if (stop === undefined) return
  for (let at = dir; at.startsWith(stop + sep); at = dirname(at)) {
    try {
      rmdirSync(at)
    } catch {
      return // not empty, or already gone
    }
  }
}
