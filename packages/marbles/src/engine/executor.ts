import type { RunState } from '../journal/fold.js'

/**
 * Who executes an engine's runs, and how a request reaches them: the state's lease holder
 * (`lease-executor.ts`: the folder layout, SQLite) or any worker taking the run's job from a queue
 * (`queue-executor.ts`: PostgreSQL). The engine core journals; an executor decides where it runs.
 */
export interface Executor {
  /** A run about to be created under `runId`: claim it first where this engine executes its own dispatches. */
  reserve?(runId: string): Promise<void>
  /** A run just journaled `queued`: have it executed (here, by the lease holder, or by a worker taking its job). */
  dispatch(runId: string, name: string): Promise<void>
  /**
   * A suspended run's signal was sent: have it started again (it journals the signal, then resumes),
   * also when it is still on its way out of this process. `key` names this wake-up (a queue job's id).
   */
  wake(runId: string, name: string, key: string): Promise<void>
  /** Cancel a run that does not execute in this process, whose journal said `state` (not terminal). */
  cancel(runId: string, state: RunState): Promise<void>
  /** Start executing: the lease holder reconciles and follows requests; a queue worker takes jobs of `workflows`. */
  start(options?: WorkerOptions): Promise<void>
  /** Stop executing: what runs here is cancelled (lease) or handed back to the queue; releases what it holds. */
  close(): Promise<void>
}

export interface WorkerOptions {
  /** The workflows and steps whose runs this process executes. Default: every one it declares. */
  workflows?: string[]
  /** Runs executed at once, per workflow. Default 4. */
  concurrency?: number
  /** On `close()`: how long runs in hand may take to finish before their jobs go back to the queue. Default 10 000 ms. */
  drainMs?: number
  /** How often runs whose job ended without settling them are looked for. Default 15 000 ms. */
  sweepMs?: number
}
