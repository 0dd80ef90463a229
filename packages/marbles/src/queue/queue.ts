/**
 * The run queue: how an engine hands runs to worker processes on any machine (`openEngine({ queue })`).
 * Without one, the engine holding the state's lease executes every run (the folder layout, SQLite);
 * with one (pg-boss on PostgreSQL), a dispatch enqueues a job and any `marbles worker` runs it.
 *
 * The run's journal stays the truth; a job only says who executes the run now. One job per run (and
 * one per wake-up of a suspended run), its id derived from the run id, so enqueueing twice is harmless.
 */
export interface RunQueue {
  /** For messages: `pg-boss`. */
  readonly kind: string
  /** Where a run's job lives: its queue (one per workflow) and its id, derived from `runId` and `key`. */
  jobRef(workflow: string, runId: string, key: string): JobRef
  /** Create the job, once: a second call with the same ref does nothing. */
  enqueue(job: JobRef & { runId: string }, policy: JobPolicy): Promise<void>
  /** Cancel the job: a worker holding it sees its `signal` abort (within the heartbeat refresh); a waiting job is never taken. */
  cancel(job: JobRef): Promise<void>
  /** Take jobs of these workflows' queues and hand each to `handler` until `stop`; jobs whose run failed for good arrive with `dead`. */
  work(workflows: readonly string[], options: WorkOptions, handler: (job: RunJob) => Promise<void>): Promise<void>
  /** Stop taking jobs; let those in hand finish for `graceMs`, then abort them (their jobs are retried or failed, per their policy). */
  stop(graceMs: number): Promise<void>
  /** Release connections. Idempotent. */
  close(): Promise<void>
}

export interface JobRef {
  queue: string
  id: string
}

/** How a job is retried and expired: derived from the workflow (`resumable`, `timeoutMs`). */
export interface JobPolicy {
  /** Retries after an attempt that ended without settling its run (a worker killed, a job expired). */
  retryLimit: number
  /** The hard timeout: a job held longer is expired (failed, or retried) by the queue. */
  expireInSeconds: number
  /** Not before (a suspended run's wake-up). */
  startAfter?: Date
}

export interface WorkOptions {
  /** Jobs executed at once, per workflow queue. Default 4. */
  concurrency?: number
}

/** A job in a worker's hands. */
export interface RunJob {
  runId: string
  /** 0: the first attempt; more: a retry after an attempt that ended without completing the job. */
  attempt: number
  /** Why the previous attempt ended, on a retry or a dead job: the queue's message (`job timed out`, `job heartbeat timeout`, an error). */
  previous?: string
  /** The job failed for good (retries exhausted, expired): settle its run, do not execute it. */
  dead: boolean
  /** Aborted when the job is cancelled, expires, or is no longer this worker's (it was retried elsewhere). */
  signal: AbortSignal
  /** After `signal` aborted: whether the job was cancelled (else this worker lost it). */
  cancelled(): Promise<boolean>
  /** Whether this worker still holds the job (asked before a run's outcome is journaled); true when the queue cannot tell. */
  held(): Promise<boolean>
}
