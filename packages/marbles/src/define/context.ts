import type { Kernel } from '@foundry/kernel'
import type { Static, TSchema } from 'typebox'
import type { RetryPolicy } from './retry.js'
import type { StepDefinition } from './workflow.js'

/** Writes to the run's journal, in order with everything else the run journals. */
export interface RunLogger {
  debug(message: string): void
  info(message: string): void
  warn(message: string): void
  error(message: string): void
}

export interface StepOptions {
  retry?: RetryPolicy
}

/** How long `ctx.waitFor` waits, and the shape its signal's data must have. */
export interface WaitOptions<S extends TSchema = TSchema> {
  /** Past this, `waitFor` throws a `TimeoutError` (catch it to go on with a value of your own). Default: no deadline. */
  timeoutMs?: number
  /** The signal's data is checked against it when sent: a signal that does not fit is refused, and the run keeps waiting. */
  schema?: S
}

/** What a sub-step's function receives. */
export interface StepContext {
  /** 1 for the first attempt. */
  attempt: number
  signal: AbortSignal
  log: RunLogger
}

/**
 * What a workflow's `run` receives. Everything it journals is ordered and durable before the engine
 * publishes it; on a resumed run (after a timer, or in a run linked to an interrupted one), finished
 * steps return their journaled results instead of running again, so `run` must call its steps and
 * timers in the same order each time.
 */
export interface RunContext {
  readonly runId: string
  /** The workflow or step dispatched. */
  readonly name: string
  /** Aborted on cancellation (reason: an `AbortError`), on `timeoutMs` (a `TimeoutError`) and at shutdown. */
  readonly signal: AbortSignal
  readonly log: RunLogger
  /** The project's kernel: memory, contracts, blackboard, runbooks. */
  readonly kernel: Kernel
  /**
   * Run a named sub-step: journaled (`start`, each failed attempt, `end` with its result), retried per
   * `options.retry`, skipped on resume once it has ended. Names repeat in a loop: the n-th call of a
   * name is `name#n`. Its result must be JSON; a large one is stored as an artifact.
   */
  step<T>(name: string, fn: (step: StepContext) => Promise<T> | T, options?: StepOptions): Promise<T>
  /** Run a declared step as a sub-step: its input validated, its retry policy applied. */
  step<I, T>(definition: StepDefinition<I, T>, input: I): Promise<T>
  /**
   * A durable timer: the run is `suspended` until `ms` have passed, then resumes from its journal
   * (finished steps are not run again), in this process or in the engine that owns the state then.
   */
  sleep(name: string, ms: number): Promise<void>
  /**
   * Wait for a signal (an event, or a person's answer): the run is `suspended` (journaled; no process
   * needs to stay up) until `marbles signal <runId> <name> --data <json>`, the `signal_run` tool or
   * `POST /runs/<runId>/signals/<name>` sends it, then resumes from its journal and returns its data.
   * Past `timeoutMs` it throws a `TimeoutError`. Names repeat like steps' (`name#n`).
   */
  waitFor<S extends TSchema>(name: string, options?: WaitOptions<S>): Promise<Static<S>>
  /** Store `data` as a blackboard artifact under the run's id (`<runId>/<name>`) and return its path. */
  artifact(name: string, data: unknown): Promise<string>
}
