import type { Storage } from '@foundry/kernel'
import { applyRecord, emptyState, type RunState } from './fold.js'
import { journalLog, parseRecord, type JournalRecord } from './records.js'

/** Records read from a journal at once: reading and following a journal holds one page, never the whole of it. */
export const JOURNAL_PAGE = 500

export interface FollowOptions {
  /** Stops following (the next wait ends at once). */
  signal?: AbortSignal
  /** The first poll interval after new entries, in ms. Default 5. */
  minIntervalMs?: number
  /** The longest interval while idle. Default 200. */
  maxIntervalMs?: number
}

/**
 * A run's journal record by record, from seq 0 (replay), then as it grows (follow), until the caller
 * stops iterating or `signal` aborts. Exact order and no duplicates: records come back in seq order
 * and a seq seen before is skipped. Following polls `logEnd`, which is cheap on every storage (a
 * stat on the folder layout, one indexed row on SQLite), backing off ×1.5 from `minIntervalMs` to
 * `maxIntervalMs` while nothing arrives: no busy polling. A storage that tells of changes
 * (`onChange`: LISTEN/NOTIFY on PostgreSQL) wakes the follower at once; polling stays as the fallback.
 */
export async function* followJournal(
  storage: Storage,
  runId: string,
  options: FollowOptions = {},
): AsyncGenerator<JournalRecord> {
  const log = journalLog(runId)
  const min = options.minIntervalMs ?? 5
  // Told of appends (onChange), polling is only the fallback: idle polls are sparser.
  const max = options.maxIntervalMs ?? (storage.onChange ? 2000 : 200)
  let cursor = 0
  let expected = 0
  let interval = min
  const changes = logChanges(storage, log)
  try {
    while (!options.signal?.aborted) {
      const page = await storage.readLog(log, cursor, { limit: JOURNAL_PAGE })
      cursor = page.cursor
      let fresh = false
      for (const entry of page.entries) {
        const record = parseRecord(entry)
        if (!record || record.seq < expected) continue
        expected = record.seq + 1
        fresh = true
        yield record
      }
      if (fresh) {
        interval = min
        continue
      }
      // Idle: wait until the log grows.
      while (!options.signal?.aborted && (await storage.logEnd(log)) <= cursor) {
        await changes.wait(interval, options.signal)
        interval = Math.min(max, interval * 1.5)
      }
    }
  } finally {
    changes.close()
  }
}

/**
 * Wake-ups for appends to one log: `wait(ms)` ends at the next change `storage.onChange` reports for
 * it (one that came since the last wait included), or after `ms`, whichever is first.
 */
export function logChanges(
  storage: Storage,
  log: string,
): { wait(ms: number, signal?: AbortSignal): Promise<void>; close(): void } {
  let pending = false
  let wake: (() => void) | undefined
  const off = storage.onChange?.((change) => {
    if (!('log' in change) || change.log !== log) return
    pending = true
    wake?.()
  })
  return {
    async wait(ms, signal) {
      if (pending) return void (pending = false)
      if (!off) return sleep(ms, signal)
      const stop = new AbortController()
      wake = () => stop.abort()
      await sleep(ms, signal ? AbortSignal.any([signal, stop.signal]) : stop.signal)
      wake = undefined
      pending = false
    },
    close: () => off?.(),
  }
}

/**
 * A run's state as its journal stands, read page by page (memory stays flat however long the
 * journal is), with the journal's size in bytes.
 */
export async function foldJournal(storage: Storage, runId: string): Promise<RunState> {
  const log = journalLog(runId)
  const state = emptyState()
  let expected = 0
  for (let cursor = 0; ; ) {
    const page = await storage.readLog(log, cursor, { limit: JOURNAL_PAGE })
    for (const entry of page.entries) {
      state.journalBytes += Buffer.byteLength(entry) + 1
      const record = parseRecord(entry)
      if (record && record.seq >= expected) {
        applyRecord(state, record)
        expected = record.seq + 1
      }
    }
    if (page.entries.length < JOURNAL_PAGE || page.cursor === cursor) return state
    cursor = page.cursor
  }
}

/** Every record of a run's journal as it stands, in memory at once (tests, small journals): `foldJournal` reads flat. */
export async function readJournal(storage: Storage, runId: string): Promise<JournalRecord[]> {
  const { entries } = await storage.readLog(journalLog(runId), 0)
  const records: JournalRecord[] = []
  let expected = 0
  for (const entry of entries) {
    const record = parseRecord(entry)
    if (record && record.seq >= expected) {
      records.push(record)
      expected = record.seq + 1
    }
  }
  return records
}

/** Wait `ms` or until `signal` aborts; `unref`: a timer that does not keep the process alive. */
export function sleep(ms: number, signal?: AbortSignal, unref = false): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    if (unref) timer.unref()
    signal?.addEventListener('abort', done, { once: true })
  })
}
