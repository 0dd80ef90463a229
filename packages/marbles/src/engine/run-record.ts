import type { JournalError, RunStatus, WaitFor } from '../journal/records.js'
import type { RunState } from '../journal/fold.js'

/**
 * A run's entry in `marbles.runs`: an index for listings, written after the journal and rebuilt from
 * it on start-up. When the two disagree, the journal is right.
 */
export interface RunRecord {
  id: string
  name: string
  status: RunStatus
  createdAt: number
  updatedAt: number
  reason?: string
  error?: JournalError
  wakeAt?: number
  resumes?: string
  resumedBy?: string
  /** Suspended by `ctx.waitFor`: the signal it waits for and its deadline. */
  waitFor?: WaitFor
  /** The workflow's version the run started under. */
  version?: string
  /** A re-run: the run it re-runs. */
  rerunOf?: string
}

export const RUNS = 'marbles.runs'
/** With a job queue: the job carrying each run (`marbles.jobs/<runId>`), where a canceller finds it. */
export const JOBS = 'marbles.jobs'

/** A run's job: its queue and id, and the run the job was created for (a linked run rides its original's job). */
export interface JobEntry {
  queue: string
  id: string
  runId: string
  /** How many times the run got a new job because its worker died before starting it. */
  requeues?: number
}
// The open collections' record types, declared to the kernel's storage (see `Collections` in @foundry/kernel).
declare module '@foundry/kernel' {
  interface Collections {
    'marbles.runs': RunRecord
    'marbles.jobs': JobEntry
  }
}

/** Requests to the lease holder from other processes: `{ "type": "dispatch" | "cancel", "runId" }` a line. */
export const CONTROL_LOG = 'marbles/control'

export function recordOf(id: string, state: RunState): RunRecord {
  return {
    id,
    name: state.name ?? '?',
    status: state.status ?? 'queued',
    createdAt: state.createdAt ?? Date.now(),
    updatedAt: state.updatedAt ?? Date.now(),
    ...(state.reason && { reason: state.reason }),
    ...(state.error && { error: state.error }),
    ...(state.wakeAt !== undefined && { wakeAt: state.wakeAt }),
    ...(state.resumes && { resumes: state.resumes }),
    ...(state.resumedBy && { resumedBy: state.resumedBy }),
    ...(state.waitFor && { waitFor: state.waitFor }),
    ...(state.version !== undefined && { version: state.version }),
    ...(state.rerunOf && { rerunOf: state.rerunOf }),
  }
}
