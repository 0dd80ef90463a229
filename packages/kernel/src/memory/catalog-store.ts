import { FoundryError } from '../errors.js'
import type { Storage } from '../storage.js'
import { HEAD_KEY, INDEX_LIST_KEY, type CatalogHead, type RecordCheck } from './catalog-records.js'

/**
 * Records as last read or written, parsed, by key: a record is reused while its stamp is the one the
 * head names. A draft changes the very objects it reads (no copy: a write would otherwise make
 * garbage of every record it reads); changing one takes it out of the cache until it is saved.
 * Bounded by count and by the length of the records' text, the first kept dropped first: a process
 * keeps the head's neighbours (index list, members) and the busiest shards. A terms shard is some
 * 2.4 KB of JSON at 10k facts and 24 KB at 100k (parsed, its terms hashed, a third more), so a large
 * project keeps fewer of them, and a server's memory does not grow with the project's size.
 */
export class RecordCache {
  private readonly kept = new Map<string, { seq: number; value: { seq: number }; chars: number }>()
  private chars = 0

  constructor(
    private readonly maxRecords = CACHE_MAX,
    private readonly maxChars = CACHE_CHARS,
  ) {}

  /** The record under `key` when it is the one stamped `seq`. */
  get(key: string, seq: number): { seq: number } | undefined {
    const kept = this.kept.get(key)
    return kept?.seq === seq ? kept.value : undefined
  }

  /** Keep `value` (stamped `seq`, `chars` long as JSON) under `key`, dropping the first kept beyond the bounds. */
  set(key: string, seq: number, value: { seq: number }, chars: number): void {
    this.delete(key)
    this.kept.set(key, { seq, value, chars })
    this.chars += chars
    for (const [first, record] of this.kept) {
      if ((this.kept.size <= this.maxRecords && this.chars <= this.maxChars) || first === key) break
      this.kept.delete(first)
      this.chars -= record.chars
    }
  }

  delete(key: string): void {
    const kept = this.kept.get(key)
    if (!kept) return
    this.kept.delete(key)
    this.chars -= kept.chars
  }

  clear(): void {
    this.kept.clear()
    this.chars = 0
  }

  get size(): number {
    return this.kept.size
  }
}
/** The most records a process keeps between operations. */
const CACHE_MAX = 192
/** Characters of JSON the kept records came from, at most: 512 KiB (about all 192 at 10k facts, some 20 terms shards at 100k). */
const CACHE_CHARS = 512 * 1024

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
    const cached = stamp === undefined ? undefined : cache.get(key, stamp)
    if (stamp === undefined) value = empty()
    else if (cached) value = cached as T
    else {
      const text = await storage.get('meta', key)
      const parsed = text === undefined ? undefined : parseOrUndefined(text)
      if (!check.check(parsed) || parsed.seq !== stamp)
        throw new FoundryError('CORRUPT', `catalog record ${key} is not the one ${HEAD_KEY} names`)
      value = parsed
      cache.set(key, stamp, value, text!.length)
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
      for (const { key, value } of entries) {
        cache.set(key, seq, loaded.get(key)!, value.length)
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
