import { FoundryError, type Storage } from '@foundry/kernel'
import { JOURNAL_LIMITS, type JournalLimits } from '../engine/limits.js'
import { journalLog, type JournalEntry, type JournalRecord } from './records.js'

/**
 * The one writer of a run's journal (the engine holding the state's lease). Records get their seq
 * when written; records written while an append is in flight go out together in the next one
 * (one `appendLog` call, so one fsync), in order. Every append is durable.
 *
 * The journal is bounded (`JournalLimits`): past the bound a log line is dropped (the first one
 * dropped journals one `warn` line saying so), a step or timer record is refused (its write rejects,
 * which fails the run); `settle` writes `status` and `result` records whatever the bound, so the run settles.
 */
export interface JournalWriter {
  /** Append a record; resolves once it, and everything written before it, is stored (undefined: a log line dropped past the bound). */
  write(entry: JournalEntry): Promise<JournalRecord | undefined>
  /** Append a `status` or `result` record: always written, whatever the bound. */
  settle(entry: Extract<JournalEntry, { type: 'status' | 'result' }>): Promise<JournalRecord>
  /** Resolves when everything written so far is stored. */
  flush(): Promise<void>
  /** Refuse further writes (a settled run's stray log calls are dropped). */
  close(): void
  readonly closed: boolean
}

export interface JournalWriterOptions {
  /** The journal's bounds. Default `JOURNAL_LIMITS`. */
  limits?: JournalLimits
  /** Bytes the journal holds already (`RunState.journalBytes`). */
  bytes?: number
  now?: () => number
}

export function journalWriter(
  storage: Storage,
  runId: string,
  nextSeq: number,
  options: JournalWriterOptions = {},
): JournalWriter {
  const log = journalLog(runId)
  const limits = options.limits ?? JOURNAL_LIMITS
  const now = options.now ?? Date.now
  let seq = nextSeq
  let bytes = options.bytes ?? 0
  let tail: Promise<void> = Promise.resolve()
  let open: string[] | undefined
  let closed = false
  let dropped = false

  const append = (entry: JournalEntry): Promise<JournalRecord> => {
    const record = { ...entry, seq: seq++, at: now() } as JournalRecord
    const line = JSON.stringify(record)
    bytes += Buffer.byteLength(line) + 1
    if (!open) {
      const batch: string[] = (open = [])
      tail = tail.then(async () => {
        if (open === batch) open = undefined
        await storage.appendLog(log, batch)
      })
    }
    open.push(line)
    return tail.then(() => record)
  }

  return {
    get closed() {
      return closed
    },
    write(entry) {
      if (closed) return Promise.reject(new Error(`the journal of ${runId} is closed: the run has settled`))
      const full = seq >= limits.lines || bytes >= limits.bytes
      if (!full) return append(entry)
      const bound = `${limits.lines} records or ${limits.bytes} bytes`
      if (entry.type === 'log') {
        if (!dropped)
          append({
            type: 'log',
            level: 'warn',
            message: `the journal reached its bound (${bound}): later log lines are dropped`,
          })
        dropped = true
        return tail.then(() => undefined)
      }
      return Promise.reject(
        new FoundryError(
          'UNAVAILABLE',
          `the journal of run ${runId} reached its bound (${bound}): no more steps or timers can be journaled; log less, or raise the bound (--journal-lines, --journal-bytes)`,
        ),
      )
    },
    settle(entry) {
      if (closed) return Promise.reject(new Error(`the journal of ${runId} is closed: the run has settled`))
      return append(entry)
    },
    flush: () => tail,
    close() {
      closed = true
    },
  }
}
