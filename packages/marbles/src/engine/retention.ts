import { FoundryError, type Storage } from '@foundry/kernel'
import { foldJournal } from '../journal/follow.js'
import { isTerminal, journalLog, TERMINAL, type RunStatus } from '../journal/records.js'
import { IDEMPOTENCY_WINDOW_MS, KEYS } from './idempotency.js'
import { JOBS, RUNS } from './run-record.js'

/** How long finished runs are kept when nothing says otherwise (`marbles prune`): 30 days. */
export const DEFAULT_RETENTION_MS = 30 * 86_400_000

export interface PruneOptions {
  /** Finished runs that last changed longer ago than this go. Default 30 days. */
  olderThanMs?: number
  /** Only runs finished in these statuses (each one of `TERMINAL`). Default: all three. */
  status?: readonly RunStatus[]
  now?: number
  /** Where the runs' blackboard artifacts live (`--artifacts`): a pruned run's go with it. Default: `storage`. */
  artifacts?: Storage
}

/**
 * Remove finished runs that last changed before the cut-off: each run's journal first, then its
 * record and job entry (a crash in between leaves a record without a journal, removed next time),
 * then its blackboard artifacts (`<runId>/…`: large outputs, `ctx.artifact()`).
 * A run is removed only when its journal says it is finished, never a queued, running or suspended
 * one. Idempotency keys past their window go too. Returns the ids removed, oldest first.
 */
export async function pruneRuns(storage: Storage, options: PruneOptions = {}): Promise<string[]> {
  const deleteLog = storage.deleteLog?.bind(storage)
  if (!deleteLog)
    throw new FoundryError(
      'UNSUPPORTED',
      `The ${storage.name} storage cannot delete logs, so runs cannot be pruned from it`,
    )
  const status = options.status ?? TERMINAL
  const wrong = status.find((s) => !TERMINAL.includes(s))
  if (wrong)
    throw new FoundryError(
      'INVALID_INPUT',
      `--status: prune removes finished runs only (${TERMINAL.join(', ')}); got "${wrong}"`,
    )
  const now = options.now ?? Date.now()
  const cutoff = now - (options.olderThanMs ?? DEFAULT_RETENTION_MS)
  const candidates = (await storage.list(RUNS))
    .filter((r) => status.includes(r.status) && r.updatedAt < cutoff)
    .sort((a, b) => a.updatedAt - b.updatedAt)
  const removed: string[] = []
  for (const record of candidates) {
    const state = await foldJournal(storage, record.id) // the journal is the truth: the record may be one write behind
    if (
      state.status !== undefined &&
      (!isTerminal(state.status) || !status.includes(state.status) || (state.updatedAt ?? 0) >= cutoff)
    )
      continue
    await deleteLog(journalLog(record.id))
    await storage.delete(RUNS, record.id)
    await storage.delete(JOBS, record.id)
    removed.push(record.id)
  }
  const artifacts = options.artifacts ?? storage
  for (const id of removed)
    for (const key of await artifacts.keys('artifacts', `${id}/`)) await artifacts.delete('artifacts', key)
  for (const key of await storage.keys(KEYS)) {
    const entry = await storage.get(KEYS, key)
    if (entry && now - entry.at >= IDEMPOTENCY_WINDOW_MS) await storage.delete(KEYS, key)
  }
  return removed
}
