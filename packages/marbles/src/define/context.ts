import type { Kernel } from '@foundry/kernel'
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
  /** Store `data` as a blackboard artifact under the run's id (`<runId>/<name>`) and return its path. */
  artifact(name: string, data: unknown): Promise<string>
}
