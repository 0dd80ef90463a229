import type { Storage } from '@foundry/kernel'
import { foldJournal, followJournal, readJournal } from '../journal/follow.js'
import { journalLog, isTerminal, type JournalRecord, type RunStatus } from '../journal/records.js'
import { RUNS } from '../engine/run-record.js'
import { runExecutor } from '../engine/run-lease.js'
import type { LeaseHolder } from '../engine/lease.js'
import { renderRecord, waitingLine } from './render.js'

/** `marbles watch` exit codes: a run whose engine died before it settled (`orphaned`) exits as a failed one. */
export const EXIT = {
  complete: 0,
  failed: 1,
  cancelled: 2,
  suspended: 3,
  unknown: 4,
  orphaned: 1,
  interrupted: 130,
} as const

/** How often a watcher of a running run checks that the process executing it (its run lease) lives. */
export const EXECUTOR_CHECK_MS = 1000

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
  /** How often the run's executor is checked while it runs (ms). Default `EXECUTOR_CHECK_MS`. */
  executorCheckMs?: number
}

/**
 * Replay a run's journal, follow it as it grows, print its result and final status, and return the
 * exit code: 0 complete, 1 failed, 2 cancelled, 3 suspended, 4 unknown run, 130 stopped by `signal`.
 * A run whose executing process died before it settled (its run lease names a dead process) is
 * reported as such, exit 1: it stays `running` until an engine taking the state over settles it.
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

/** While the run is `running` (or `cancel_requested`), check its executor every `ms`; `dead` is called once with it when it died. */
function watchExecutor(
  storage: Storage,
  runId: string,
  ms: number,
  running: () => boolean,
  dead: (holder: LeaseHolder) => void,
): () => void {
  let busy = false
  const timer = setInterval(() => {
    if (busy || !running()) return
    busy = true
    void runExecutor(storage, runId)
      .then((executor) => executor && !executor.alive && (clearInterval(timer), dead(executor.holder)))
      .catch(() => {}) // the store is busy: the next check
      .finally(() => (busy = false))
  }, ms)
  return () => clearInterval(timer)
}

async function followOne(
  storage: Storage,
  runId: string,
  options: WatchOptions,
  write: (line: string) => void,
): Promise<Outcome> {
  let status: RunStatus | undefined
  let last: JournalRecord | undefined
  let output: JournalRecord | undefined
  let orphaned: LeaseHolder | undefined
  const stop = new AbortController()
  const abort = () => stop.abort()
  options.signal?.addEventListener('abort', abort, { once: true })
  if (options.signal?.aborted) stop.abort()
  const running = () => status === 'running' || status === 'cancel_requested'
  const unwatch = watchExecutor(
    storage,
    runId,
    options.executorCheckMs ?? EXECUTOR_CHECK_MS,
    running,
    (holder) => ((orphaned = holder), stop.abort()),
  )
  const show = (record: JournalRecord) => {
    write(options.json ? JSON.stringify(record) : renderRecord(record))
    last = record
    if (record.type === 'result') output = record
    if (record.type === 'status') status = record.status
  }
  try {
    const records = followJournal(storage, runId, {
      signal: stop.signal,
      ...(options.minIntervalMs !== undefined && { minIntervalMs: options.minIntervalMs }),
      ...(options.maxIntervalMs !== undefined && { maxIntervalMs: options.maxIntervalMs }),
    })
    for await (const record of records) {
      show(record)
      if (record.type !== 'status' || !status) continue
      if (isTerminal(status)) break
      if (status === 'suspended') {
        // Suspended is a resting state: stop here unless more was journaled already (a resume).
        if ((await foldJournal(storage, runId)).nextSeq <= record.seq + 1) break
      }
    }
  } finally {
    unwatch()
    options.signal?.removeEventListener('abort', abort)
  }
  if (orphaned) {
    // What the executor journaled before it died and after the last record read: then it is settled, or left running.
    for (const record of await readJournal(storage, runId)) if (record.seq > (last?.seq ?? -1)) show(record)
    if (running()) {
      const line = `run ${runId} ${status}: its engine (pid ${orphaned.pid} on ${orphaned.host}) died before it settled; the next engine to take the state over (marbles serve, marbles run) settles it`
      if (options.json) process.stderr.write(`${line}\n`)
      else write(line)
      return 'orphaned'
    }
  }
  if (options.signal?.aborted && !(status && (isTerminal(status) || status === 'suspended'))) return 'interrupted'
  if (!options.json) {
    if (output?.type === 'result')
      write(`result: ${output.artifact ? output.artifact : JSON.stringify(output.output ?? null)}`)
    const waiting = last?.type === 'status' && last.waitFor ? ` (${waitingLine(last.waitFor)})` : ''
    write(
      `run ${runId} ${status}${last?.type === 'status' && last.error ? `: ${last.error.name}: ${last.error.message}` : ''}${waiting}`,
    )
  }
  if (last?.type === 'status' && last.status === 'failed' && last.resumedBy && options.followLinks !== false) {
    if (!options.json) write(`following ${last.resumedBy}, which resumes it`)
    return { linked: last.resumedBy }
  }
  if (status === 'complete' || status === 'failed' || status === 'cancelled' || status === 'suspended') return status
  return 'interrupted'
}
