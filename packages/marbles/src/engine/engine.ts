import { FoundryError, validator, type Kernel, type Storage } from '@foundry/kernel'
import { kindOf } from '../define/brand.js'
import { defineWorkspace, type Definitions } from '../define/registry.js'
import { isTerminal, type RunStatus } from '../journal/records.js'
import type { RunQueue } from '../queue/queue.js'
import { createEngineCore, infoOf, type RunInfo } from './core.js'
import { assertIdempotencyKey, dispatchOnce } from './idempotency.js'
import { searchRuns, type RunFilter } from './run-search.js'
import { newRunId } from './ids.js'
import type { IsolateOptions } from './isolate/isolate.js'
import { assertInputWithin, journalLimits, type JournalLimits } from './limits.js'
import type { Executor, WorkerOptions } from './executor.js'
import type { LeaseHolder, LeaseOptions } from './lease.js'
import { openLeaseExecutor } from './lease-executor.js'
import { queueExecutor } from './queue-executor.js'
import { planRerun } from './rerun.js'
import { sendSignal } from './signals.js'
import type { RunRecord } from './run-record.js'

export type { RunInfo } from './core.js'
export type { WorkerOptions } from './executor.js'
export type { RunFilter } from './run-search.js'

export interface EngineOptions {
  /** Where runs (`marbles.runs`) and their journals (logs `marbles/<runId>`) live. */
  storage: Storage
  /** The kernel workflows get (memory, contracts, blackboard); events `marbles.*` are recorded through it. */
  kernel: Kernel
  /** What can be dispatched. Default: nothing (a reader that only watches and cancels). */
  definitions?: Definitions
  /** Where large outputs go, as blackboard artifacts under the run id. Default: `storage`. */
  artifacts?: Storage
  /**
   * `auto` (default): own the state when no live process does, else join as a reader.
   * `owner`: throw CONFLICT when another process owns it. `reader`: never own it.
   * `local`: never own it, and execute this engine's own dispatches here, beside any other engines
   * on the state (each run under its run lease): what `marbles mcp` opens, one per connection.
   */
  role?: 'auto' | 'owner' | 'reader' | 'local'
  /** Execute the runs found `queued` at start-up (`marbles serve`). Default false. */
  executeQueued?: boolean
  /** The lease holder (or a `local` engine) executes this many runs at once; the others wait their turn, in order. Default 8. (With a queue: `work({ concurrency })`.) */
  concurrency?: number
  /** How long a cancelled or timed-out run's body may take to settle before it is stopped (`isolate`) or abandoned. Default 2 000 ms. */
  graceMs?: number
  /**
   * Run the workspace's bodies in worker threads (the `marbles` bin's `body-worker.js`): a body that
   * ignores its cancellation or timeout is stopped after `graceMs`. Default: bodies run in this process.
   */
  isolate?: IsolateOptions
  /** How much one run may journal (records, bytes). Default `JOURNAL_LIMITS`: 10 000 records, 16 MiB. */
  journal?: Partial<JournalLimits>
  lease?: LeaseOptions
  /**
   * Dispatch through a job queue (pg-boss on PostgreSQL) instead of the lease: `dispatch` enqueues a
   * job, and engines calling `work()`, in any process on any machine, execute the runs. No lease is taken.
   */
  queue?: RunQueue
}

export interface DispatchResult {
  runId: string
  name: string
  status: RunStatus
  /** The `idempotencyKey` named an earlier run: this is it, and no run was made. */
  deduplicated?: true
}

export interface DispatchOptions {
  /**
   * A dispatch of the same workflow with the same key within 24 h (`IDEMPOTENCY_WINDOW_MS`), from any
   * process sharing the state, returns the run the first one made, and makes none.
   */
  idempotencyKey?: string
}

export interface Engine {
  /** This engine holds the state's lease: it executes runs. A reader dispatches and cancels through the owner. */
  readonly owner: boolean
  /** The live owner when this engine is a reader. */
  readonly holder: LeaseHolder | undefined
  readonly definitions: Definitions
  /** Create the run durably (journal, then record) and return at once; it runs in the owner. With a known `idempotencyKey`: that run, as it stands. */
  dispatch(name: string, input?: unknown, options?: DispatchOptions): Promise<DispatchResult>
  /** The run as its journal says, or undefined for an unknown id. */
  get(runId: string): Promise<RunInfo | undefined>
  /** Recent runs from the runs index, newest first (20 unless `limit` says), narrowed by status, workflow and creation time. */
  runs(filter?: RunFilter): Promise<RunRecord[]>
  /**
   * Send the signal a suspended run waits for (`ctx.waitFor(name)`): checked against the wait's schema
   * (INVALID_INPUT; the run keeps waiting), refused (CONFLICT) when the run waits for no such signal;
   * then the run resumes in the engine owning the state. Returns the run as it was when the signal went.
   */
  signal(runId: string, name: string, data?: unknown): Promise<RunInfo>
  /**
   * A new run of an ended run's workflow and input (`rerunOf` links them): the steps that ended before
   * `from` (default: the first failed step) are replayed from the old journal, and it executes from there.
   */
  rerun(runId: string, options?: { from?: string }): Promise<DispatchResult>
  /** Request cancellation (`cancel_requested`, then `cancelled`); undefined for an unknown id. */
  cancel(runId: string): Promise<RunInfo | undefined>
  /** Resolves once the run is terminal or suspended (polling its journal with back-off). */
  settled(runId: string, signal?: AbortSignal): Promise<RunInfo | undefined>
  /** Runs executing in this process. */
  active(): string[]
  /**
   * With a queue: execute the jobs of these workflows, in this process, until `close()` (which stops
   * taking jobs and lets those in hand finish for `drainMs`). Re-enqueues runs left queued without a job.
   */
  work(options?: WorkerOptions): Promise<void>
  /** Cancel what executes here ("the engine shut down"), stop following requests, release the lease. */
  close(): Promise<void>
}

/**
 * Open an engine on a state. With a `queue`, runs are executed by workers taking their jobs; else
 * by the holder of the state's lease: take it (or join as a reader), reconcile what a dead owner
 * left, follow requests.
 */
export async function openEngine(options: EngineOptions): Promise<Engine> {
  const { storage, kernel, queue } = options
  const definitions = options.definitions ?? defineWorkspace()
  const graceMs = options.graceMs ?? 2000
  const core = createEngineCore({
    storage,
    kernel,
    definitions,
    artifacts: options.artifacts ?? storage,
    graceMs,
    journal: journalLimits(options.journal),
    ...(options.isolate && { isolate: options.isolate }),
  })
  const lease = queue
    ? undefined
    : await openLeaseExecutor(core, {
        role: options.role ?? 'auto',
        executeQueued: options.executeQueued ?? false,
        ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
        ...(options.lease && { lease: options.lease }),
      })
  const executor: Executor = lease ?? queueExecutor(core, queue!, graceMs)
  await lease?.start()
  let closing: Promise<void> | undefined

  return {
    owner: lease?.owner ?? false,
    holder: lease?.holder,
    definitions,
    async dispatch(name, input = {}, { idempotencyKey } = {}) {
      if (core.closed) throw new FoundryError('UNAVAILABLE', 'The engine is closed')
      const def = options.definitions ? core.findRunnable(name) : undefined
      assertInputWithin(input)
      if (idempotencyKey !== undefined) assertIdempotencyKey(idempotencyKey)
      const valid = def?.input ? validator(def.input).parse(input, `input of ${kindOf(def)} ${name}`) : input
      // Reserved outside the key's exclusive section (a reservation takes one of its own); a reservation
      // a known key leaves unused names no run, and ends with this engine.
      const reserved = newRunId()
      await executor.reserve?.(reserved)
      const create = () => core.create(name, valid, undefined, reserved)
      const { runId, created } =
        idempotencyKey === undefined
          ? { runId: await create(), created: true }
          : await dispatchOnce(storage, name, idempotencyKey, create)
      if (!created) return { runId, name, status: (await core.get(runId))?.status ?? 'queued', deduplicated: true }
      await executor.dispatch(runId, name)
      return { runId, name, status: 'queued' }
    },
    async signal(runId, name, data) {
      if (core.closed) throw new FoundryError('UNAVAILABLE', 'The engine is closed')
      assertInputWithin(data ?? null, 'data', 'the run keeps waiting')
      const state = await core.stateOf(runId)
      await sendSignal(storage, runId, state, name, data)
      await executor.wake(runId, state.name ?? '?', `signal-${state.nextSeq}`)
      return infoOf(runId, state)!
    },
    async rerun(runId, { from } = {}) {
      if (core.closed) throw new FoundryError('UNAVAILABLE', 'The engine is closed')
      const plan = await planRerun(storage, definitions, runId, from)
      const id = newRunId()
      await executor.reserve?.(id)
      await core.create(plan.name, plan.input, undefined, id, plan.fields)
      await executor.dispatch(id, plan.name)
      return { runId: id, name: plan.name, status: 'queued' }
    },
    get: core.get,
    runs: (filter) => searchRuns(storage, filter),
    async cancel(runId) {
      if (await core.cancelActive(runId)) return core.get(runId)
      const state = await core.stateOf(runId)
      if (state.status === undefined || isTerminal(state.status)) return infoOf(runId, state)
      await executor.cancel(runId, state)
      return core.get(runId)
    },
    settled: core.settled,
    active: core.active,
    async work(w = {}) {
      if (!queue)
        throw new FoundryError(
          'UNSUPPORTED',
          'work() needs a job queue: openEngine({ queue }) (a project on PostgreSQL)',
        )
      return executor.start(w)
    },
    close: () => (closing ??= executor.close()),
  }
}
