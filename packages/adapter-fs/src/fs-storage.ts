// `fsp` is node:fs's `promises`, loaded on first use: a process that only reads never loads node:fs/promises (~2 ms).
import { readdirSync, rmdirSync, statSync, writeFileSync, promises as fsp } from 'node:fs'
import { basename, dirname, join, sep } from 'node:path'
import {
  COLLECTIONS,
  createStorage,
  EVENTS_LOG,
  isCollectionName,
  type CollectionName,
  type ListOptions,
  type RecordOf,
  type StorageDriver,
  type StorageEntry,
  type WriteOptions,
} from '@foundry/kernel/adapter'
import type { Storage } from '@foundry/kernel'
import { FoundryError } from '@foundry/kernel'
import { isTempName, sweepTemps, syncFolder, writeAtomic, writeAtomicMany } from './atomic.js'
import { codecOf, isRecordOf } from './codecs.js'
import { withYaml } from './front-matter.js'
import { FormatError } from './format-error.js'
import { createGuard, isMissing, routeGuards } from './guard.js'
import { appendLine, readText } from './io.js'
import { createJournal } from './journal.js'
import { createLayout, INDEX_META_KEY, isOpen } from './layout.js'
import { createSectionLock, type LockOptions } from './lock.js'
import { appendEntries, endOf, readEntries } from './log-file.js'
import { fileIdentity, openRecordCache, type RecordCache } from './record-cache.js'
import { scan, scanLogs } from './scan.js'

export interface FsStorageOptions {
  /** The project root. The data lives in `<root>/.foundry`. */
  root: string
  /** The data folder: a name or path relative to `root`, or an absolute path. Default `.foundry`. */
  folder?: string
  /**
   * fsync what a durable write (the default of `put`, `delete` and `appendLog`) wrote, and its
   * folder, before it resolves, so a power loss keeps every write that was reported done. Default
   * true; `false` skips every fsync. Turn off only for throwaway data (tests, seeding).
   */
  durable?: boolean
  /** The exclusive section's lock: when a crashed holder's lock is broken (a live one keeps it), and how long to wait. */
  lock?: LockOptions
  /**
   * The folder of derived state (change journals, parsed-record caches, retriever snapshots, the
   * write lock), relative to `root` or absolute. Default `<data folder>/cache`. Elsewhere, the data
   * folder holds content only (`foundry export`); every process sharing the data must name the
   * same cache folder, or their exclusive sections do not exclude each other.
   */
  cache?: string
}

const GITIGNORE =
  '# Local to this machine: telemetry, caches (rebuilt when missing) and logs (run journals).\nmetrics/\ncache/\nlogs/\n' +
  '# What a writer killed mid-write leaves (swept by the next write or listing).\n.*.tmp\n'
const NOUNS: Record<string, string> = {
  facts: 'fact',
  runbooks: 'runbook',
  contracts: 'contract',
  artifacts: 'artifact',
  meta: 'meta',
}
const noun = (collection: CollectionName) => NOUNS[collection] ?? `${collection} record`

/**
 * Storage on the `.foundry` folder: human-readable files a team reviews in git, safe with many
 * processes writing at once. Records are replaced atomically (temporary file, fsync, rename); the
 * exclusive section is a lock shared by every process; events and log entries are appended one
 * O_APPEND write a call; revisions and change lists come from per-collection journals (journal.ts).
 * Not transactional: a section that throws keeps the writes it made. No path leaves the data
 * folder: keys and log names arrive checked (`createStorage`), and links out of the folder are refused.
 */
export function fsStorage(options: FsStorageOptions): Storage {
  return createStorage(fsDriver(options))
}

/** The folder layout's `StorageDriver`: what `fsStorage` wraps. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose returned object holds the methods; each method is short
export function fsDriver(options: FsStorageOptions): StorageDriver {
  const layout = createLayout(options.root, options.folder, options.cache)
  const inside = layout.cache === layout.base || layout.cache.startsWith(layout.base + sep)
  const guard = inside ? createGuard(layout.base) : routeGuards([createGuard(layout.base), createGuard(layout.cache)])
  const durable = options.durable ?? true
  const lock = createSectionLock(layout.lock, options.lock)
  const journal = createJournal({
    journal: layout.journal,
    watched: layout.watched,
    prepare: () => void guard.folder(layout.cache),
  })
  let prepared = false
  let sweptIndexFolder = false

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

  /** The caller says what a write may lose; `durable: false` makes every write relaxed. */
  const isDurable = (options: WriteOptions | undefined) => durable && options?.durability !== 'relaxed'

  /** The record in the file at `real` (a resolved path inside the folder), or undefined when it is gone. */
  async function decode<C extends CollectionName>(
    collection: C,
    key: string,
    path: string,
    real: string,
  ): Promise<RecordOf<C> | undefined> {
    let text: string
    try {
      text = await readText(real)
    } catch (error) {
      if (isMissing(error)) return undefined // deleted since it was found
      if ((error as NodeJS.ErrnoException).code !== 'EISDIR') throw new FormatError((error as Error).message)
      // Meta `a` when only `a/b` exists, or a `<name>.json` folder of an open collection: a folder of names, not a record.
      if (collection === 'meta' || isOpen(collection)) return undefined
      throw new FormatError('it is a folder, not a file')
    }
    const at = { key, file: basename(path), modified: () => statSync(real).mtime }
    // Front matter not in the form Foundry writes (edited by hand) loads the YAML library to read it.
    return withYaml(() => codecOf(collection).decode(text, at))
  }

  /** The text of a record's file; the YAML library loaded first only when its front matter needs it. */
  const encode = <C extends CollectionName>(collection: C, key: string, value: RecordOf<C>) =>
    withYaml(() => codecOf(collection).encode(value, key))

  /** The parsed-record cache, for the markdown collections; none when its file cannot be trusted. */
  const recordCache = <T>(collection: CollectionName): RecordCache<T> | undefined => {
    if (collection !== 'facts' && collection !== 'runbooks') return undefined
    try {
      guard.existing(layout.records(collection))
    } catch {
      return undefined // a link out of the folder: parse everything rather than trust it
    }
    const valid = isRecordOf(collection) as (record: unknown, key: string) => record is T
    return openRecordCache<T>(layout.records(collection), () => guard.folder(layout.cache), valid)
  }

  const corrupt = (collection: CollectionName, key: string, path: string, error: unknown) =>
    error instanceof FormatError
      ? new FoundryError(
          'CORRUPT',
          `Cannot read ${noun(collection)} ${key} from ${path}: ${error.message}. Fix the file or delete it.`,
          { cause: error },
        )
      : error

  /** Remove what killed writers left in `dirs`; a sweep in a watched folder is journaled, so it breaks no change chain. */
  const sweep = (collection: CollectionName, temps: Array<{ dir: string; names: string[] }>) => {
    for (const { dir, names } of temps) {
      const before = journal.state(collection)
      if (sweepTemps(dir, names) > 0 && before !== journal.state(collection))
        journal.record(collection, 'tmp', '-', [before, journal.state(collection)])
    }
  }

  /** Events, where they always were: `metrics/events.jsonl`, one JSON object a line, the cursor a byte offset. */
  const appendEvents = async (lines: readonly string[]) => {
    prepare()
    guard.folder(dirname(layout.events))
    guard.existing(layout.events)
    return appendLine(layout.events, lines.join('\n'), { afterTornLine: true })
  }
  /** Every event line, whole (the kernel reads the events log from 0 only); a line cut short by a crash is handed on: the kernel skips what does not parse. */
  const readEvents = async () => {
    const real = guard.existing(layout.events)
    if (real === undefined) return { entries: [], cursor: 0 }
    const text = await readText(real)
    return { entries: text.split('\n').filter((line) => line.trim()), cursor: Buffer.byteLength(text) }
  }

  return {
    name: 'fs',
    flags: { persistent: true, multiProcess: true, changeLog: true, transactional: false },

    async get<C extends CollectionName>(collection: C, key: string) {
      const path = layout.file(collection, key)
      try {
        const real = guard.existing(path)
        return real === undefined ? undefined : await decode(collection, key, path, real)
      } catch (error) {
        throw corrupt(collection, key, path, error)
      }
    },

    async list<C extends CollectionName>(collection: C, listOptions: ListOptions) {
      const found = scan(collection, listOptions.prefix ?? '', layout, guard)
      const report = (key: string, location: string, message: string) =>
        listOptions.onProblem?.({ collection, key, location, message })
      for (const misfit of found.misfits) report(misfit.key, misfit.path, misfit.message)
      const cache = recordCache<RecordOf<C>>(collection)
      const records: RecordOf<C>[] = []
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

    async keys(collection, prefix, onProblem) {
      const { found, misfits } = scan(collection, prefix, layout, guard)
      for (const { key, path, message } of misfits) onProblem?.({ collection, key, location: path, message })
      return found.map((f) => f.key)
    },

    async put<C extends CollectionName>(collection: C, key: string, value: RecordOf<C>, writeOptions?: WriteOptions) {
      const text = await encode(collection, key, value)
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
          await writeAtomic(dirname(target), basename(target), text, isDurable(writeOptions), created, lock.fence)
          break
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EISDIR')
            throw new FoundryError(
              'CONFLICT',
              `Cannot store ${noun(collection)} ${key}: ${path} is a folder. A name cannot be both a record and a folder of records.`,
            )
          // Another process pruned the (empty) folder between our check and our write: make it again.
          if (!isMissing(error) || attempt > 2) throw error
        }
      }
      states.push(journal.state(collection))
      journal.record(collection, 'put', key, distinct(states))
      // INDEX.md sits outside every listed folder: what killed writers left beside it goes at the first rewrite.
      if (collection === 'meta' && key === INDEX_META_KEY && !sweptIndexFolder) {
        sweptIndexFolder = true
        const dir = dirname(path)
        sweepTemps(dir, readdirSync(dir).filter(isTempName))
      }
    },

    async putMany<C extends CollectionName>(
      collection: C,
      entries: ReadonlyArray<StorageEntry<C>>,
      writeOptions?: WriteOptions,
    ) {
      const texts: string[] = []
      for (const { key, value } of entries) texts.push(await encode(collection, key, value))
      prepare()
      const files = entries.map(({ key }, i) => {
        const data = texts[i]!
        const path = layout.file(collection, key)
        guard.existing(path) // as in put: a link in the record's place is refused when it leads out, else replaced
        const dir = guard.folder(dirname(path))
        if (statSync(join(dir, basename(path)), { throwIfNoEntry: false })?.isDirectory())
          throw new FoundryError(
            'CONFLICT',
            `Cannot store ${noun(collection)} ${key}: ${path} is a folder. A name cannot be both a record and a folder of records.`,
          )
        return { dir, name: basename(path), data }
      })
      const states = [journal.state(collection)]
      await writeAtomicMany(
        files,
        isDurable(writeOptions),
        () => void states.push(journal.state(collection)),
        lock.fence,
      )
      // One line a key; the first carries every state the folder went through, each later one the last.
      const last = states[states.length - 1]!
      entries.forEach(({ key }, i) => journal.record(collection, 'put', key, i === 0 ? distinct(states) : [last]))
    },

    async delete(collection, key, writeOptions) {
      const path = layout.file(collection, key)
      const dir = guard.existing(dirname(path))
      if (dir === undefined) return false
      const before = journal.state(collection)
      lock.fence()
      try {
        await fsp.unlink(join(dir, basename(path))) // a link is removed itself, never what it points to
      } catch (error) {
        if (isMissing(error)) return false
        throw error
      }
      if (isDurable(writeOptions)) await syncFolder(dir)
      if (collection === 'meta' || isOpen(collection)) prune(dir, guard.existing(layout.folder(collection)))
      journal.record(collection, 'del', key, distinct([before, journal.state(collection)]))
      return true
    },

    async collections() {
      const real = guard.existing(layout.data)
      const consumers =
        real === undefined ? [] : readdirSync(real).filter((name) => isCollectionName(name) && isOpen(name))
      const found: CollectionName[] = []
      for (const collection of [...COLLECTIONS, ...(consumers as CollectionName[])])
        if (scan(collection, '', layout, guard).found.length) found.push(collection)
      return found.sort()
    },

    async exclusive<T>(fn: () => Promise<T>): Promise<T> {
      prepare()
      guard.folder(layout.cache)
      return lock.run(fn)
    },

    async revision(collection) {
      return journal.revision(collection)
    },

    async changes(collection, since) {
      guard.existing(layout.cache) // refuses a cache folder that links out
      return journal.changes(collection, since)
    },

    async appendLog(name, entries, writeOptions) {
      if (name === EVENTS_LOG) return appendEvents(entries)
      const path = layout.log(name)
      prepare()
      const dir = guard.folder(dirname(path))
      guard.existing(path) // refuses a log file that links out
      return appendEntries(join(dir, basename(path)), entries, isDurable(writeOptions))
    },

    async readLog(name, cursor, limit = Infinity) {
      if (name === EVENTS_LOG) return readEvents()
      const real = guard.existing(layout.log(name))
      if (real === undefined) return { entries: [], cursor }
      return readEntries(real, cursor, limit)
    },

    async logEnd(name) {
      const real = guard.existing(layout.log(name))
      return real === undefined ? 0 : endOf(real)
    },

    async deleteLog(name) {
      const real = guard.existing(layout.log(name))
      if (real === undefined) return false
      const held = endOf(real) > 0
      await fsp.unlink(real).catch((error: unknown) => {
        if (!isMissing(error)) throw error
      })
      return held
    },

    async logs(prefix) {
      return scanLogs(prefix, layout, guard)
        .filter((log) => endOf(log.real ?? guard.existing(log.path) ?? log.path) > 0)
        .map((log) => log.key)
    },

    locate(collection, key) {
      return layout.file(collection, key)
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
