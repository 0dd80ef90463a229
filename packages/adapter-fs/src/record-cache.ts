import { statSync } from 'node:fs'
import { basename } from 'node:path'
import { writeAtomic } from './atomic.js'
import { readTextSync } from './io.js'

/**
 * Parsed records of a markdown collection (facts, runbooks), kept in `cache/<collection>.records.json`
 * beside each file's identity: inode, size, modification and change times. A listing parses only
 * the files whose identity changed, so a new process lists 10k facts without parsing 10k YAML
 * documents, and a file edited in place (new times) is parsed again. Records enter the cache only
 * after they passed the schema, and leave it only after passing it again (`valid`): the file is
 * anyone's to edit, so an entry that is not a valid record of its key is dropped and its file read.
 * The cache is derived: a stale or bad entry is a miss, a lost or unreadable file costs one full
 * parse, and concurrent writers replace it atomically (the last one wins).
 */
export interface RecordCache<T> {
  /** The record of `key` when it was cached for this very file version. */
  lookup(key: string, identity: string): T | undefined
  remember(key: string, identity: string, record: T): void
  /** Write the cache back when it changed, keeping only `keys` (the records now on disk). */
  save(keys: Set<string>): Promise<void>
}

const FORMAT = 'foundry-records/1'

interface Stored<T> {
  format: string
  entries: Record<string, [identity: string, record: T]>
}

/** The identity of the file at `path` (following links), or undefined when it is gone. */
export function fileIdentity(path: string): string | undefined {
  const s = statSync(path, { throwIfNoEntry: false }) // plain numbers: microsecond times, and no BigInt garbage for 10k files
  return s && `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`
}

/**
 * Open the cache at `path`; `folder()` returns its (checked, created) real folder when saving;
 * `valid(record, key)` says whether a cached record may be returned for `key`.
 */
export function openRecordCache<T>(
  path: string,
  folder: () => string,
  valid: (record: unknown, key: string) => record is T,
): RecordCache<T> {
  let entries: Stored<T>['entries'] = Object.create(null)
  try {
    const stored = JSON.parse(readTextSync(path)) as Stored<T> | null
    if (
      stored?.format === FORMAT &&
      stored.entries &&
      typeof stored.entries === 'object' &&
      !Array.isArray(stored.entries)
    )
      entries = Object.assign(Object.create(null), stored.entries)
  } catch {
    // missing or unreadable: start empty
  }
  let changed = false
  return {
    lookup(key, identity) {
      const entry: unknown = entries[key]
      if (!Array.isArray(entry) || entry[0] !== identity) return undefined
      if (valid(entry[1], key)) return entry[1]
      delete entries[key] // not a record of this key: read the file, and save what it holds
      changed = true
      return undefined
    },
    remember(key, identity, record) {
      entries[key] = [identity, record]
      changed = true
    },
    async save(keys) {
      for (const key of Object.keys(entries)) if (!keys.has(key)) delete entries[key], (changed = true)
      if (!changed) return
      const stored: Stored<T> = { format: FORMAT, entries }
      await writeAtomic(folder(), basename(path), JSON.stringify(stored), false)
      changed = false
    },
  }
}
