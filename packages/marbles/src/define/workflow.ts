import type { Static, TSchema } from 'typebox'
import { checkName, KIND } from './brand.js'
import type { RunContext, StepContext } from './context.js'
import { resolveRetry, type RetryPolicy } from './retry.js'
import { runLimits, type ConcurrencyOptions, type RateLimitOptions, type RunLimits } from './run-limits.js'

export interface WorkflowOptions<S extends TSchema, O> {
  name: string
  description?: string
  /** The input's TypeBox schema; dispatch validates against it. Default: any JSON object. */
  input?: S
  /** The run is stopped (its signal aborted) and reported `failed` with a timeout error after this long running. */
  timeoutMs?: number
  /**
   * When an engine finds this workflow's run left `running` by a dead process: `true` resumes it in a
   * linked run that replays its finished steps; default `false` marks it failed (interrupted).
   */
  resumable?: boolean
  /** At most `limit` runs at once per key (from the input), across every process serving the state. */
  concurrency?: ConcurrencyOptions<Static<S>>
  /** At most `limit` starts per key in any `periodMs`, across every process serving the state. */
  rateLimit?: RateLimitOptions<Static<S>>
  /**
   * The workflow's version, recorded with each run. A run resumed (a timer, a signal, a linked run)
   * or re-run by code declaring another version is refused (failed, `VersionMismatch`), so a renamed
   * step never runs its side effects twice. Change it when steps are renamed, added or reordered.
   */
  version?: string | number
  /** Earlier versions whose runs this code may resume: their journals replay the same steps. */
  compatible?: ReadonlyArray<string | number>
  run(ctx: RunContext, input: Static<S>): Promise<O> | O
}

export interface WorkflowDefinition<I = unknown, O = unknown> {
  readonly [KIND]: 'workflow'
  readonly name: string
  readonly description: string | undefined
  readonly input: TSchema | undefined
  readonly timeoutMs: number | undefined
  readonly resumable: boolean
  /** Its concurrency and rate limits; a run held back by one stays `queued` with the reason. Absent: none. */
  readonly limits?: RunLimits
  readonly version: string | undefined
  readonly compatible: readonly string[]
  run(ctx: RunContext, input: I): Promise<O> | O
}

export interface StepDefinitionOptions<S extends TSchema, O> {
  name: string
  description?: string
  input?: S
  retry?: RetryPolicy
  timeoutMs?: number
  run(step: StepContext & { kernel: RunContext['kernel']; runId: string }, input: Static<S>): Promise<O> | O
}

export interface StepDefinition<I = unknown, O = unknown> {
  readonly [KIND]: 'step'
  readonly name: string
  readonly description: string | undefined
  readonly input: TSchema | undefined
  readonly retry: Required<RetryPolicy>
  readonly timeoutMs: number | undefined
  run(step: StepContext & { kernel: RunContext['kernel']; runId: string }, input: I): Promise<O> | O
}

/** Declare a workflow: dispatched by name, its input checked against `input`. Declaring does nothing else. */
export function workflow<S extends TSchema, O>(options: WorkflowOptions<S, O>): WorkflowDefinition<Static<S>, O> {
  checkTimeout(options.timeoutMs, options.name)
  return {
    [KIND]: 'workflow',
    name: checkName('workflow', options.name),
    description: options.description,
    input: options.input,
    timeoutMs: options.timeoutMs,
    resumable: options.resumable ?? false,
    limits: runLimits(options.name, options.concurrency, options.rateLimit),
    version: options.version === undefined ? undefined : String(options.version),
    compatible: (options.compatible ?? []).map(String),
    run: options.run,
  }
}

/** Declare a step: a unit a workflow calls with `ctx.step(definition, input)`, or that is dispatched alone. */
export function step<S extends TSchema, O>(options: StepDefinitionOptions<S, O>): StepDefinition<Static<S>, O> {
  checkTimeout(options.timeoutMs, options.name)
  return {
    [KIND]: 'step',
    name: checkName('step', options.name),
    description: options.description,
    input: options.input,
    retry: resolveRetry(options.retry),
    timeoutMs: options.timeoutMs,
    run: options.run,
  }
}

function checkTimeout(ms: number | undefined, name: string): void {
  if (ms !== undefined && !(Number.isInteger(ms) && ms > 0 && ms <= 2_147_483_647))
    throw new TypeError(`${name}: timeoutMs must be a positive integer of milliseconds, at most 2147483647; got ${ms}`)
}
