import { FoundryError } from '../errors.js'
import type { Storage } from '../storage.js'
import { HEAD_KEY, INDEX_LIST_KEY, type CatalogHead, type RecordCheck } from './catalog-records.js'

/**
 * Records as last read or written, parsed, by key: a record is reused while its stamp is the one the
 * head names. A draft changes the very objects it reads (no copy: a write would otherwise make
 * garbage of every record it reads); changing one takes it out of the cache until it is saved.
 */
export type RecordCache = Map<string, { seq: number; value: { seq: number } }>
/** The most records a process keeps between operations: the head's neighbours (index list, members) and the busiest shards; a shard at 100k facts is some 30 KB parsed (its terms hashed: a third of their text). */
const CACHE_MAX = 192

/** The records one draft read or changed, and the write of the changed ones. */
export interface DraftRecords {
  /** The record under `key` as the head stamps it (`stamp` undefined: never written, `empty`); throws CORRUPT when it is not that one. */
  record<T extends { seq: number }>(
    key: string,
    stamp: number | undefined,
    check: RecordCheck<T>,
    empty: () => T,
  ): Promise<T>
  readonly loaded: Map<string, { seq: number }>
  readonly dirty: Set<string>
  /** Mark a record changed (called right after changing it, before any await). */
  touch(key: string): void
  /** Write the changed records (relaxed, together) stamped with the head's next sequence, and name them in `head`. */
  save(): Promise<void>
}

/** `touched`: told of every record changed in place (see `FactCatalog.ahead`). */
export function openRecords(
  storage: Storage,
  cache: RecordCache,
  head: CatalogHead,
  touched: () => void = () => {},
): DraftRecords {
  const seq = head.seq + 1
  const loaded = new Map<string, { seq: number }>()
  const dirty = new Set<string>()

  async function record<T extends { seq: number }>(
    key: string,
    stamp: number | undefined,
    check: RecordCheck<T>,
    empty: () => T,
  ): Promise<T> {
    const have = loaded.get(key) as T | undefined
    if (have) return have
    let value: T
    const cached = cache.get(key)
    if (stamp === undefined) value = empty()
    else if (cached?.seq === stamp) value = cached.value as T
    else {
      const text = await storage.get('meta', key)
      const parsed = text === undefined ? undefined : parseOrUndefined(text)
      if (!check.check(parsed) || parsed.seq !== stamp)
        throw new FoundryError('CORRUPT', `catalog record ${key} is not the one ${HEAD_KEY} names`)
      value = parsed
      remember(cache, key, stamp, value)
    }
    loaded.set(key, value)
    return value
  }
  return {
    record,
    loaded,
    dirty,
    touch(key) {
      dirty.add(key)
      cache.delete(key)
      touched()
    },
    async save() {
      if (!dirty.size) return void (head.seq = seq)
      // One putMany: a storage that writes many records in one statement (PostgreSQL) does.
      const entries = [...dirty].map((key) => {
        const value = loaded.get(key)!
        value.seq = seq
        return { key, value: JSON.stringify(value) }
      })
      await storage.putMany('meta', entries, { durability: 'relaxed' })
      for (const key of dirty) {
        remember(cache, key, seq, loaded.get(key)!)
        if (key === INDEX_LIST_KEY) head.index = seq
        else if (key.startsWith('catalog/terms/'))
          head.terms[Number.parseInt(key.slice('catalog/terms/'.length), 16)] = seq - head.base
        else head.members[Number(key.slice('catalog/members/'.length))] = seq - head.base
      }
      head.seq = seq
    },
  }
}

export function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function remember(cache: RecordCache, key: string, seq: number, value: { seq: number }) {
  if (cache.size >= CACHE_MAX && !cache.has(key)) cache.delete(cache.keys().next().value!)
  cache.set(key, { seq, value })
}
