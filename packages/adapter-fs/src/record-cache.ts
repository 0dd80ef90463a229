import { readFileSync, statSync } from 'node:fs'
import { basename } from 'node:path'
import { writeAtomic } from './atomic.js'

/**
 * Parsed records of a markdown collection (facts, runbooks), kept in `cache/<collection>.records.json`
 * beside each file's identity: inode, size, modification and change times. A listing parses only
 * the files whose identity changed, so a new process lists 10k facts without parsing 10k YAML
 * documents, and a file edited in place (new times) is parsed again. Records enter the cache only
 * after they passed the schema. The cache is derived: a stale entry is a miss, a lost or unreadable
 * file costs one full parse, and concurrent writers replace it atomically (the last one wins).
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

/** Open the cache at `path`; `folder()` returns its (checked, created) real folder when saving. */
export function openRecordCache<T>(path: string, folder: () => string): RecordCache<T> {
  let entries: Stored<T>['entries'] = {}
  try {
    const stored = JSON.parse(readFileSync(path, 'utf8')) as Stored<T>
    if (stored.format === FORMAT && stored.entries && typeof stored.entries === 'object') entries = stored.entries
  } catch {
    // missing or unreadable: start empty
  }
  let changed = false
  return {
    lookup(key, identity) {
      const entry = entries[key]
      return entry && entry[0] === identity ? entry[1] : undefined
    },
    remember(key, identity, record) {
      entries[key] = [identity, record]
      changed = true
    },
    async save(keys) {
      for (const key of Object.keys(entries)) if (!keys.has(key)) (delete entries[key], (changed = true))
      if (!changed) return
      const stored: Stored<T> = { format: FORMAT, entries }
      await writeAtomic(folder(), basename(path), JSON.stringify(stored), false)
      changed = false
    },
  }
}
