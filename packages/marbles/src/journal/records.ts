import type { JsonValue } from '@foundry/kernel'

/**
 * The statuses of a run. The journal's last `status` record is the run's status.
 *
 * ```
 * queued ──▶ running ──▶ complete
 *   │          │ ├─────▶ failed            (an error, timeoutMs, or interrupted: its process died)
 *   │          │ └─────▶ suspended ──▶ running   (a timer fell due, or the signal it waits for came)
 *   │          ▼              │
 *   └──▶ cancel_requested ◀───┘ ──▶ cancelled
 *                   └───────────────▶ complete   (the body had returned when the cancellation came)
 * ```
 */
export type RunStatus = 'queued' | 'running' | 'suspended' | 'cancel_requested' | 'complete' | 'failed' | 'cancelled'

export const TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  queued: ['running', 'cancel_requested'],
  running: ['complete', 'failed', 'suspended', 'cancel_requested'],
  suspended: ['running', 'cancel_requested'],
  cancel_requested: ['cancelled', 'complete'],
  complete: [],
  failed: [],
  cancelled: [],
}

export const TERMINAL: readonly RunStatus[] = ['complete', 'failed', 'cancelled']
export const isTerminal = (status: RunStatus) => TERMINAL.includes(status)
export const canMove = (from: RunStatus, to: RunStatus) => TRANSITIONS[from].includes(to)

/** An error as the journal keeps it. `name`: `TimeoutError`, `AbortError`, `Interrupted`, or the thrown error's. */
export interface JournalError {
  name: string
  message: string
}

/** What a suspended run waits for: a signal's name (as `marbles signal` takes it), the wait's id, and its deadline. */
export interface WaitFor {
  signal: string
  /** The wait's id in the journal (`signal`, or `signal#n` for the n-th wait on one name). */
  id: string
  until?: number
}

interface Base {
  /** 0, 1, 2, … in the order written: one writer (the lease holder) per run. */
  seq: number
  /** Epoch milliseconds. */
  at: number
}

export type JournalRecord = Base &
  (
    | {
        type: 'status'
        status: RunStatus
        /** On `queued`: what was dispatched. */
        name?: string
        input?: JsonValue
        /** Why: `interrupted`, `timeout`, `cancelled by request`, … */
        reason?: string
        error?: JournalError
        /** On `suspended`: when the timer falls due (epoch ms). */
        wakeAt?: number
        /** On `queued` of a linked run: the run it resumes. On `failed` (interrupted): the run resuming it. */
        resumes?: string
        resumedBy?: string
        /** On `suspended` by `ctx.waitFor`: the signal the run waits for, and its deadline (`wakeAt`). */
        waitFor?: WaitFor
        /** On `queued`: the workflow's declared version the run started under. */
        version?: string
        /** On `queued` of a re-run: the run it re-runs, and the first seq of that run's journal not replayed. */
        rerunOf?: string
        replayBefore?: number
      }
    | { type: 'log'; level: 'debug' | 'info' | 'warn' | 'error'; message: string; step?: string }
    | {
        type: 'step'
        phase: 'start' | 'end' | 'error'
        step: string
        attempt: number
        ms?: number
        /** On `end`: the result, or the path of the artifact holding it. */
        result?: JsonValue
        artifact?: string
        /** The artifact's key in the artifacts collection, to read it back on resume. */
        key?: string
        /** On `error`: what failed, and the wait before the next attempt (absent when none is left). */
        error?: JournalError
        retryInMs?: number
        /** On `end` when the result came from an earlier run's journal (a linked resumed run). */
        replayed?: boolean
      }
    | { type: 'timer'; name: string; until: number }
    /** `ctx.waitFor` reached: `name` is the wait's id (`signal`, or `signal#n`), `schema` the data's JSON Schema. */
    | { type: 'wait'; name: string; signal: string; until?: number; schema?: JsonValue }
    /** A wait's outcome: the signal's data, or `timedOut` once its deadline passed without one. */
    | { type: 'signal'; name: string; data?: JsonValue; timedOut?: boolean; replayed?: boolean }
    | { type: 'result'; output?: JsonValue; artifact?: string; key?: string }
  )

export type JournalEntry = JournalRecord extends infer R ? (R extends Base ? Omit<R, 'seq' | 'at'> : never) : never

/** The log a run's journal lives in. */
export const journalLog = (runId: string) => `marbles/${runId}`

export function parseRecord(entry: string): JournalRecord | undefined {
  try {
    const value = JSON.parse(entry) as JournalRecord
    return typeof value === 'object' &&
      value !== null &&
      typeof value.seq === 'number' &&
      typeof value.type === 'string'
      ? value
      : undefined
  } catch {
    return undefined
  }
}
