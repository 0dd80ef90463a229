import type { Storage } from '@foundry/kernel'
import { journalLog, parseRecord, type JournalRecord } from './records.js'

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
 * `maxIntervalMs` while nothing arrives: no busy polling.
 */
export async function* followJournal(storage: Storage, runId: string, options: FollowOptions = {}): AsyncGenerator<JournalRecord> {
  const log = journalLog(runId)
  const min = options.minIntervalMs ?? 5
  const max = options.maxIntervalMs ?? 200
  let cursor = 0
  let expected = 0
  let interval = min
  while (!options.signal?.aborted) {
    const page = await storage.readLog(log, cursor)
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
      await sleep(interval, options.signal)
      interval = Math.min(max, interval * 1.5)
    }
  }
}

/** Every record of a run's journal as it stands. */
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
