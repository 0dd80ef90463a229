import type { Storage } from '@foundry/kernel'
import { foldJournal, followJournal } from '../journal/follow.js'
import { journalLog, isTerminal, type JournalRecord, type RunStatus } from '../journal/records.js'
import { RUNS } from '../engine/run-record.js'
import { renderRecord, waitingLine } from './render.js'

/** `marbles watch` exit codes. */
export const EXIT = { complete: 0, failed: 1, cancelled: 2, suspended: 3, unknown: 4, interrupted: 130 } as const

export interface WatchOptions {
  /** NDJSON: each journal record as stored, one a line. */
  json?: boolean
  /** Where lines go. Default: stdout. */
  write?: (line: string) => void
  /** Aborting stops the watcher (Ctrl-C): exit 130; the run carries on. */
  signal?: AbortSignal
  /** Follow a run resumed in a linked run (default true). */
  followLinks?: boolean
  /** Poll intervals while idle (ms). */
  minIntervalMs?: number
  maxIntervalMs?: number
}

/**
 * Replay a run's journal, follow it as it grows, print its result and final status, and return the
 * exit code: 0 complete, 1 failed, 2 cancelled, 3 suspended, 4 unknown run, 130 stopped by `signal`.
 * Needs only the storage: any process, any directory.
 */
export async function watchRun(storage: Storage, runId: string, options: WatchOptions = {}): Promise<number> {
  const write = options.write ?? ((line: string) => void process.stdout.write(`${line}\n`))
  let current = runId
  for (;;) {
    if (!(await exists(storage, current))) {
      if (!options.json) write(`unknown run ${current}`)
      return EXIT.unknown
    }
    const outcome = await followOne(storage, current, options, write)
    if (outcome === 'interrupted') return EXIT.interrupted
    if (typeof outcome === 'object') {
      current = outcome.linked // failed (interrupted), resumed in a linked run: follow it
      continue
    }
    return EXIT[outcome]
  }
}

async function exists(storage: Storage, runId: string): Promise<boolean> {
  if (!/^[a-z0-9][a-z0-9._-]*$/i.test(runId)) return false
  return (await storage.get(RUNS, runId)) !== undefined || (await storage.logEnd(journalLog(runId))) > 0
}

type Outcome = Exclude<keyof typeof EXIT, 'unknown' | 'interrupted'> | 'interrupted' | { linked: string }

async function followOne(storage: Storage, runId: string, options: WatchOptions, write: (line: string) => void): Promise<Outcome> {
  let status: RunStatus | undefined
  let last: JournalRecord | undefined
  let output: JournalRecord | undefined
  const stop = new AbortController()
  const abort = () => stop.abort()
  options.signal?.addEventListener('abort', abort, { once: true })
  if (options.signal?.aborted) stop.abort()
  try {
    const records = followJournal(storage, runId, {
      signal: stop.signal,
      ...(options.minIntervalMs !== undefined && { minIntervalMs: options.minIntervalMs }),
      ...(options.maxIntervalMs !== undefined && { maxIntervalMs: options.maxIntervalMs }),
    })
    for await (const record of records) {
      write(options.json ? JSON.stringify(record) : renderRecord(record))
      last = record
      if (record.type === 'result') output = record
      if (record.type !== 'status') continue
      status = record.status
      if (isTerminal(status)) break
      if (status === 'suspended') {
        // Suspended is a resting state: stop here unless more was journaled already (a resume).
        if ((await foldJournal(storage, runId)).nextSeq <= record.seq + 1) break
      }
    }
  } finally {
    options.signal?.removeEventListener('abort', abort)
  }
  if (options.signal?.aborted && !(status && (isTerminal(status) || status === 'suspended'))) return 'interrupted'
  if (!options.json) {
    if (output?.type === 'result') write(`result: ${output.artifact ? output.artifact : JSON.stringify(output.output ?? null)}`)
    const waiting = last?.type === 'status' && last.waitFor ? ` (${waitingLine(last.waitFor)})` : ''
    write(`run ${runId} ${status}${last?.type === 'status' && last.error ? `: ${last.error.name}: ${last.error.message}` : ''}${waiting}`)
  }
  if (last?.type === 'status' && last.status === 'failed' && last.resumedBy && options.followLinks !== false) {
    if (!options.json) write(`following ${last.resumedBy}, which resumes it`)
    return { linked: last.resumedBy }
  }
  if (status === 'complete' || status === 'failed' || status === 'cancelled' || status === 'suspended') return status
  return 'interrupted'
}
