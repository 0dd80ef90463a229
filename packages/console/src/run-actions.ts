import { FoundryError } from '@foundry/kernel'
import type { CancelAnswer, RunStartedAnswer, WorkflowInfo } from './wire.js'

/**
 * What the console needs to start and stop runs. The console reads runs from storage itself; an app
 * that runs workflows (the `foundry` app, over Marbles' engine) implements this and passes it as
 * `runs`, and only then does the Runs page offer dispatch, cancel and re-run (a `run` token's).
 * Errors are FoundryErrors whose one line the page shows as it is.
 */
export interface RunActions {
  /** The workflows and steps that may be dispatched, each with its input JSON Schema. */
  workflows(): Promise<WorkflowInfo[]>
  /**
   * Make a run of `name` with `input` and return at once (it runs in the background). The input is
   * checked against the workflow's own schema (INVALID_INPUT naming the field); an unknown name is
   * NOT_FOUND. The same `idempotencyKey` within a day returns the run the first dispatch made.
   */
  dispatch(name: string, input: unknown, options?: { idempotencyKey?: string }): Promise<RunStartedAnswer>
  /** Request a run's cancellation; its status then. NOT_FOUND for an unknown run; an ended run stays as it is. */
  cancel(runId: string): Promise<CancelAnswer>
  /** A new run of an ended run's workflow and input, linked to it (CONFLICT while it has not ended). */
  rerun(runId: string): Promise<RunStartedAnswer>
}

const NAME_MAX = 200

/** The checked body of `POST api/runs`: `{ name, input?, idempotencyKey? }`. Throws INVALID_INPUT naming the field. */
export function dispatchRequest(body: Record<string, unknown>): {
  name: string
  input: unknown
  idempotencyKey?: string
} {
  const { name, input, idempotencyKey } = body
  if (typeof name !== 'string' || !name.trim() || name.length > NAME_MAX)
    throw new FoundryError('INVALID_INPUT', `name: the workflow to dispatch, a string of 1 to ${NAME_MAX} characters`)
  if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string')
    throw new FoundryError('INVALID_INPUT', 'idempotencyKey: a string, or leave it out')
  return { name, input: input ?? {}, ...(idempotencyKey !== undefined && { idempotencyKey }) }
}

/** The console's run actions, or NOT_FOUND when it was started without them. */
export function actionsOf(actions: RunActions | undefined): RunActions {
  if (!actions)
    throw new FoundryError(
      'NOT_FOUND',
      'run actions: this console does not run workflows (foundry ui serves them; or use marbles run, marbles cancel, marbles rerun)',
    )
  return actions
}
