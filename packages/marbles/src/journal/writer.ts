import type { Storage } from '@foundry/kernel'
import { journalLog, type JournalEntry, type JournalRecord } from './records.js'

/**
 * The one writer of a run's journal (the engine holding the state's lease). Records get their seq
 * when written; records written while an append is in flight go out together in the next one
 * (one `appendLog` call, so one fsync), in order. Every append is durable.
 */
export interface JournalWriter {
  /** Append a record; resolves once it, and everything written before it, is stored. */
  write(entry: JournalEntry): Promise<JournalRecord>
  /** Resolves when everything written so far is stored. */
  flush(): Promise<void>
  /** Refuse further writes (a settled run's stray log calls are dropped). */
  close(): void
  readonly closed: boolean
}

export function journalWriter(storage: Storage, runId: string, nextSeq: number, now: () => number = Date.now): JournalWriter {
  const log = journalLog(runId)
  let seq = nextSeq
  let tail: Promise<void> = Promise.resolve()
  let open: string[] | undefined
  let closed = false

  return {
    get closed() {
      return closed
    },
    write(entry) {
      if (closed) return Promise.reject(new Error(`the journal of ${runId} is closed: the run has settled`))
      const record = { ...entry, seq: seq++, at: now() } as JournalRecord
      if (!open) {
        const batch: string[] = (open = [])
        tail = tail.then(async () => {
          if (open === batch) open = undefined
          await storage.appendLog(log, batch)
        })
      }
      open.push(JSON.stringify(record))
      return tail.then(() => record)
    },
    flush: () => tail,
    close() {
      closed = true
    },
  }
}
