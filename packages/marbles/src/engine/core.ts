import { FoundryError, type JsonValue, type Kernel, type Storage } from '@foundry/kernel'
import { KIND, kindOf } from '../define/brand.js'
import type { Definitions, Runnable } from '../define/registry.js'
import { findRunnable, resumable, versionOf, versionRefusal } from './runnables.js'
import { applyRecord, foldRecords, type RunState } from '../journal/fold.js'
import { foldJournal, logChanges } from '../journal/follow.js'
import { canMove, isTerminal, journalLog, type JournalEntry, type RunStatus } from '../journal/records.js'
import { journalWriter, type JournalWriter } from '../journal/writer.js'
import type { JournalLimits } from './limits.js'
import { abandonBody, runIsolated, type IsolateOptions } from './isolate/isolate.js'
import type { Outcome } from './isolate/protocol.js'
import { runArtifacts, type RunArtifacts } from './artifacts.js'
import { cancelReason, claimLostReason, isClaimLost, journalError, Suspend, timeoutReason } from './errors.js'
import { newRunId } from './ids.js'
import { createRunContext } from './run-context.js'
import { inheritedState } from './replay.js'
import { endWait } from './signals.js'
import { recordOf, RUNS, type RunRecord } from './run-record.js'

/** A run as its journal says: the record's fields, and its output once complete. */
export interface RunInfo extends RunRecord {
  output?: JsonValue
  /** The artifact holding a large output. */
  artifact?: string
}

/** What a `status` record carries beside its status. */
export type StatusFields = Partial<Omit<Extract<JournalEntry, { type: 'status' }>, 'type' | 'status'>>

/** A run's claim held outside this process's engine (a queue job), structurally a `RunJob`. */
export interface RunClaim {
  /** Aborted when the claim is cancelled or lost. */
  readonly signal: AbortSignal
  /** After `signal` aborted: whether it was cancelled (else lost to another worker). */
  cancelled(): Promise<boolean>
  /** Whether this process still holds the claim; asked before an outcome is journaled. */
  held(): Promise<boolean>
}

export interface ExecuteOptions {
  /**
   * A queue job: the start is taken inside the storage's exclusive section, so a cancellation of a
   * run no worker holds yet and its start never both happen; the claim's signal aborts the run
   * (cancelled), or stops this process writing its journal (the claim was lost).
   */
  claim?: RunClaim
  /** The run suspended (`key` names this wake-up): arrange its resumption at `until`, before it leaves this process; undefined: a wait without a deadline, woken by its signal. */
  suspended(runId: string, name: string, key: string, until: number | undefined): Promise<void> | void
}

export interface CoreOptions {
  storage: Storage
  kernel: Kernel
  definitions: Definitions
  /** Where large outputs go, as blackboard artifacts under the run id. */
  artifacts: Storage
  /** How long a cancelled or timed-out run's body may take to settle before it is stopped (`isolate`) or abandoned. */
  graceMs: number
  /** How much one run may journal. */
  journal: JournalLimits
  /** Run these bodies in worker threads (stopped after `graceMs` when they ignore their signal); absent: all run in this process. */
  isolate?: IsolateOptions
}

/**
 * What every engine does whoever executes its runs: the state machine journaled (journal, then the
 * record, then the event), a run's body executed in this process, and runs read back. Executors (the
 * lease, the job queue) decide when and where `execute` is called.
 */
export interface EngineCore {
  readonly storage: Storage
  readonly definitions: Definitions
  /** Set once `shutdown` began: nothing more is executed here. */
  readonly closed: boolean
  /** The run's state as its journal stands: the one read of a journal, handed on to what follows. */
  stateOf(runId: string): Promise<RunState>
  /** The writer of a run's journal from `state` on, within the journal's bounds. */
  writer(runId: string, state: RunState): JournalWriter
  /** Journal the move (CONFLICT when the state machine forbids it), then the record, then the event. */
  transition(runId: string, writer: JournalWriter, state: RunState, to: RunStatus, fields?: StatusFields): Promise<void>
  /** A new run, journaled `queued` with its workflow's version; `resumes` links it to the run it resumes; `runId` a fresh id chosen before; `fields` add to its record. Returns its id. */
  create(name: string, input: unknown, resumes?: string, runId?: string, fields?: StatusFields): Promise<string>
  /** The declared workflow or step; NOT_FOUND naming the known ones. */
  findRunnable(name: string): Runnable
  /** Whether `name` is a workflow declared `resumable`. */
  resumable(name: string | undefined): boolean
  /** Execute a queued or suspended run here; resolves when it settled or suspended (never rejects). */
  execute(runId: string, options: ExecuteOptions): Promise<void>
  /** Cancel a run no process executes: `cancel_requested` (unless it is), then `cancelled`. */
  cancelIdle(runId: string, state: RunState): Promise<void>
  /** Cancel a run executing here and wait for it to settle; false when it does not execute here. */
  cancelActive(runId: string): Promise<boolean>
  /** Journal a log line in the run's journal (through its writer when it executes here); nothing for an unknown run. */
  note(runId: string, level: 'warn' | 'error', message: string): Promise<void>
  /** The run as its journal says, or undefined for an unknown id. */
  get(runId: string): Promise<RunInfo | undefined>
  /** Resolves once the run is terminal, or suspended and not executing here. */
  settled(runId: string, signal?: AbortSignal): Promise<RunInfo | undefined>
  /** Runs executing in this process. */
  active(): string[]
  /** Abort every run executing here with `reason`. */
  abortAll(reason: unknown): void
  /** Stop executing: abort what runs here with `reason` and wait for it to settle. */
  shutdown(reason: unknown): Promise<void>
}

/** A run executing in this process. */
interface Active {
  controller: AbortController
  /** The run once started (its writer and state), or undefined when it did not start. */
  ready: Promise<Started | undefined>
  done: Promise<void>
  /** Under a claim: whether it is still this process's. */
  held?: () => Promise<boolean>
}

type Started = { writer: JournalWriter; state: RunState }

/** What the core's functions share: its options, the runs executing here, and who waits for a change. */
interface Core extends CoreOptions {
  active: Map<string, Active>
  waiters: Set<() => void>
  /** Per run, the tail of its decisions (see `serial`). */
  turns: Map<string, Promise<unknown>>
  closed: boolean
}

/** A core over one state: it runs nothing by itself; its executor calls `execute` when and where runs should run. */
export function createEngineCore(options: CoreOptions): EngineCore {
  const c: Core = { ...options, active: new Map(), waiters: new Set(), turns: new Map(), closed: false }
  return {
    storage: c.storage,
    definitions: c.definitions,
    get closed() {
      return c.closed
    },
    stateOf: (runId) => stateOf(c, runId),
    writer: (runId, state) => writerOf(c, runId, state),
    transition: (runId, writer, state, to, fields) => transition(c, runId, writer, state, to, fields),
    create: (name, input, resumes, runId, fields) => create(c, name, input, resumes, runId, fields),
    findRunnable: (name) => findRunnable(c.definitions, name),
    resumable: (name) => resumable(c.definitions, name),
    execute: (runId, executeOptions) => execute(c, runId, executeOptions),
    cancelIdle: (runId, state) => cancelIdle(c, runId, state),
    cancelActive: (runId) => cancelActive(c, runId),
    note: (runId, level, message) => note(c, runId, level, message),
    get: async (runId) => infoOf(runId, await stateOf(c, runId)),
    settled: (runId, signal) => settled(c, runId, signal),
    active: () => [...c.active.keys()],
    abortAll: (reason) => abortAll(c, reason),
    async shutdown(reason) {
      c.closed = true
      abortAll(c, reason)
      await Promise.all([...c.active.values()].map((run) => run.done))
    },
  }
}

/** The run a state describes, with its output once complete; undefined for a run with no journal. */
export function infoOf(runId: string, state: RunState): RunInfo | undefined {
  if (state.status === undefined) return undefined
  const info: RunInfo = recordOf(runId, state)
  if (state.output?.output !== undefined) info.output = state.output.output
  if (state.output?.artifact) info.artifact = state.output.artifact
  return info
}

const stateOf = (c: Core, runId: string) => foldJournal(c.storage, runId)
const writerOf = (c: Core, runId: string, state: RunState) =>
  journalWriter(c.storage, runId, state.nextSeq, { limits: c.journal, bytes: state.journalBytes })

const notify = (c: Core) => [...c.waiters].forEach((wake) => wake())

/**
 * Run `fn` after every earlier `serial` call for the same run in this process: a decision about a
 * run (cancel it, journal its outcome) and its transitions are never interleaved with another's.
 */
function serial<T>(c: Core, runId: string, fn: () => Promise<T>): Promise<T> {
  const turn = (c.turns.get(runId) ?? Promise.resolve()).then(fn)
  const tail = turn.catch(() => {})
  c.turns.set(runId, tail)
  void tail.then(() => c.turns.get(runId) === tail && c.turns.delete(runId))
  return turn
}

const abortAll = (c: Core, reason: unknown) => {
  for (const run of c.active.values()) run.controller.abort(reason)
}

/** Journal first (durable), then the record, then the event: nothing is published before it is journaled. */
async function transition(
  c: Core,
  runId: string,
  writer: JournalWriter,
  state: RunState,
  to: RunStatus,
  fields: StatusFields = {},
): Promise<void> {
  if (state.status !== undefined ? !canMove(state.status, to) : to !== 'queued')
    throw new FoundryError('CONFLICT', `run ${runId} cannot go from ${state.status ?? 'nothing'} to ${to}`)
  // Under a claim, an outcome is journaled only while the claim holds (a worker that froze and thawed may not hold it any more).
  const held = c.active.get(runId)?.held
  if (held && (to === 'complete' || to === 'failed' || to === 'suspended') && !(await held())) {
    writer.close()
    throw claimLostReason()
  }
  const record = await writer.settle({ type: 'status', status: to, ...fields })
  applyRecord(state, record)
  await c.storage.put(RUNS, runId, recordOf(runId, state), { durability: 'relaxed' })
  void c.kernel.record(`marbles.${to}`, { runId, name: state.name, ...(state.reason && { reason: state.reason }) }) // never throws; not awaited: telemetry is off the run's path
  notify(c)
}

async function create(
  c: Core,
  name: string,
  input: unknown,
  resumes?: string,
  runId = newRunId(),
  fields: StatusFields = {},
): Promise<string> {
  const state = foldRecords([])
  const version = versionOf(c.definitions.runnables.get(name))
  await transition(c, runId, writerOf(c, runId, state), state, 'queued', {
    name,
    input: (input ?? {}) as JsonValue,
    ...(resumes && { resumes }),
    ...(version !== undefined && { version }),
    ...fields,
  })
  return runId
}

/** Take the run from `queued` or `suspended` to `running`; undefined when it is neither, or was aborted first (then settled). */
async function start(c: Core, runId: string, controller: AbortController): Promise<Started | undefined> {
  const state = await stateOf(c, runId)
  if (state.status !== 'queued' && state.status !== 'suspended') return undefined
  const writer = writerOf(c, runId, state)
  if (controller.signal.aborted) {
    if (!isClaimLost(controller.signal.reason)) await settleAborted(c, runId, writer, state, controller.signal.reason)
    return undefined
  }
  // Suspended on a wait: its signal (or its deadline) is journaled first; with neither, it waits on.
  const woken = state.status === 'suspended' ? await endWait(c.storage, runId, writer, state) : undefined
  if (woken === null) return undefined
  await transition(
    c,
    runId,
    writer,
    state,
    'running',
    woken
      ? { reason: woken }
      : state.resumes
        ? { reason: `resumes ${state.resumes}` }
        : state.rerunOf
          ? { reason: `re-runs ${state.rerunOf}` }
          : {},
  )
  return { writer, state }
}

function execute(c: Core, runId: string, options: ExecuteOptions): Promise<void> {
  const running = c.active.get(runId)
  if (running) return running.done
  if (c.closed) return Promise.resolve()
  const { claim } = options
  const controller = new AbortController()
  let resolveReady!: (v: Started | undefined) => void
  const entry: Active = {
    controller,
    ready: new Promise((r) => (resolveReady = r)),
    done: Promise.resolve(),
    ...(claim && { held: () => claim.held() }),
  }
  c.active.set(runId, entry)
  let writer: JournalWriter | undefined
  const onClaimAbort = () =>
    void claim!.cancelled().then((cancelled) => {
      if (cancelled) return controller.abort(cancelReason())
      writer?.close() // not ours any more: whoever holds the claim now writes the journal
      controller.abort(claimLostReason())
    })
  claim?.signal.addEventListener('abort', onClaimAbort, { once: true })
  entry.done = (async () => {
    const started = claim
      ? await c.storage.exclusive(() => start(c, runId, controller))
      : await start(c, runId, controller)
    resolveReady(started)
    if (!started) return
    writer = started.writer
    try {
      await runBody(c, runId, started, controller, options)
    } finally {
      await started.writer.flush().catch(() => {})
      started.writer.close()
    }
  })()
    .catch(
      (error) => void (isClaimLost(error) || process.emitWarning(`marbles: run ${runId}: ${(error as Error).message}`)),
    )
    .finally(() => {
      claim?.signal.removeEventListener('abort', onClaimAbort)
      resolveReady(undefined)
      c.active.delete(runId)
      notify(c)
    })
  return entry.done
}

/** Run the body of a run just started, and journal how it ended. */
async function runBody(
  c: Core,
  runId: string,
  { writer, state }: Started,
  controller: AbortController,
  options: ExecuteOptions,
): Promise<void> {
  const signal = controller.signal
  const name = state.name ?? '?'
  const def = c.definitions.runnables.get(name)
  if (!def)
    return transition(c, runId, writer, state, 'failed', {
      error: { name: 'NotFound', message: `no workflow or step named "${name}" in this workspace` },
    })

  const artifacts = runArtifacts(c.artifacts, runId, name)
  const earlier = await inheritedState(c.storage, state)
  const refused = versionRefusal(def, earlier && state.resumes ? earlier.version : state.version)
  if (refused) return transition(c, runId, writer, state, 'failed', { reason: 'version mismatch', error: refused })
  const from = state.resumes ?? state.rerunOf
  const inherited =
    earlier && from
      ? { steps: earlier.steps, signals: earlier.signals, artifacts: runArtifacts(c.artifacts, from, name) }
      : undefined
  const isolated = c.isolate?.runs(name)
    ? runIsolated(c.isolate, {
        runId,
        name,
        state,
        signal,
        writer,
        kernel: c.kernel,
        artifacts,
        ...(inherited && { inherited }),
      })
    : undefined
  const timer = def.timeoutMs
    ? setTimeout(() => controller.abort(timeoutReason(`${kindOf(def)} ${name}`, def.timeoutMs!)), def.timeoutMs)
    : undefined
  const body: Promise<Outcome> =
    isolated?.outcome ??
    Promise.resolve()
      .then(() => {
        signal.throwIfAborted() // aborted while its start was being recorded: the body never starts
        const ctx = createRunContext({
          runId,
          name,
          signal,
          writer,
          kernel: c.kernel,
          artifacts,
          state,
          ...(inherited && { inherited }),
        })
        return def[KIND] === 'step' ? ctx.step(def, state.input) : def.run(ctx, state.input)
      })
      .then(
        (value) => ({ ok: true, value, early: !signal.aborted }),
        (error) => ({ ok: false, error }),
      )
  // Once aborted (maybe already), the body gets `graceMs` to unwind; then it is stopped (in a worker) or abandoned.
  const unwound = new Promise<'abandoned'>((resolve) => {
    const arm = () => setTimeout(() => resolve('abandoned'), c.graceMs).unref()
    if (signal.aborted) arm()
    else signal.addEventListener('abort', arm, { once: true })
  })
  const first = await Promise.race([body, unwound])
  clearTimeout(timer)
  const outcome = first === 'abandoned' ? await abandonBody(writer, signal, c.graceMs, isolated) : first
  await isolated?.stop() // a settled body's leftover timers and handles go with its worker
  await writer.flush().catch(() => {})

  return serial(c, runId, () => settle(c, runId, writer, state, signal, outcome, artifacts, options))
}

/**
 * Journal how a run's body ended. A body that returned before its signal aborted completes, even when
 * a cancellation was journaled meanwhile (`cancel_requested` → `complete`); any other end under a
 * cancellation or an abort settles as aborted; a worker that lost the run's job writes nothing.
 */
async function settle(
  c: Core,
  runId: string,
  writer: JournalWriter,
  state: RunState,
  signal: AbortSignal,
  outcome: Outcome,
  artifacts: RunArtifacts,
  options: ExecuteOptions,
): Promise<void> {
  if (signal.aborted && isClaimLost(signal.reason)) return undefined
  const completed = outcome.ok && outcome.early
  if (!completed && signal.aborted)
    return settleAborted(c, runId, writer, state, signal.reason, outcome.ok ? undefined : outcome.abandoned)
  if (!completed && state.status === 'cancel_requested') return settleAborted(c, runId, writer, state, cancelReason())
  if (!outcome.ok && outcome.error instanceof Suspend) {
    const key = `wake-${state.nextSeq}`
    const { until, waitFor } = outcome.error
    await transition(c, runId, writer, state, 'suspended', {
      ...(until !== undefined && { wakeAt: until }),
      ...(waitFor && { waitFor }),
    })
    return options.suspended(runId, state.name ?? '?', key, until)
  }
  if (outcome.ok) {
    const stored = await artifacts.keep('output', outcome.value)
    await writer.settle({
      type: 'result',
      ...(stored.result !== undefined && { output: stored.result }),
      ...(stored.artifact && { artifact: stored.artifact, key: stored.key! }),
    })
    return transition(c, runId, writer, state, 'complete')
  }
  return transition(c, runId, writer, state, 'failed', { error: journalError(outcome.error) })
}

/** A run aborted while running: `failed` on its timeout, else cancelled; `abandoned` says how a body that ignored it was ended. */
async function settleAborted(
  c: Core,
  runId: string,
  writer: JournalWriter,
  state: RunState,
  reason: unknown,
  abandoned?: 'stopped' | 'left running',
): Promise<void> {
  const error = journalError(reason)
  if (error.name === 'TimeoutError' && state.status === 'running')
    return transition(c, runId, writer, state, 'failed', { reason: 'timeout', error })
  if (state.status !== 'cancel_requested')
    await transition(c, runId, writer, state, 'cancel_requested', { reason: error.message })
  const why =
    abandoned === 'stopped'
      ? `${error.message}; abandoned: the body ignored it and its worker was stopped`
      : abandoned
        ? `${error.message}; abandoned: the body ignored it and still runs`
        : error.message
  return transition(c, runId, writer, state, 'cancelled', { reason: why })
}

async function cancelIdle(c: Core, runId: string, state: RunState): Promise<void> {
  if (state.status === undefined || isTerminal(state.status)) return
  const writer = writerOf(c, runId, state)
  const why =
    state.status === 'running' || state.status === 'cancel_requested'
      ? 'cancelled; the engine running it had stopped'
      : 'cancelled by request'
  if (state.status !== 'cancel_requested')
    await transition(c, runId, writer, state, 'cancel_requested', { reason: 'cancelled by request' })
  await transition(c, runId, writer, state, 'cancelled', { reason: why })
}

async function cancelActive(c: Core, runId: string): Promise<boolean> {
  const running = c.active.get(runId)
  if (!running) return false
  const ready = await running.ready
  await serial(c, runId, async () => {
    if (
      ready &&
      !isTerminal(ready.state.status!) &&
      ready.state.status !== 'cancel_requested' &&
      !running.controller.signal.aborted
    )
      await transition(c, runId, ready.writer, ready.state, 'cancel_requested', { reason: 'cancelled by request' })
  })
  running.controller.abort(cancelReason())
  await running.done
  return true
}

async function note(c: Core, runId: string, level: 'warn' | 'error', message: string): Promise<void> {
  const ready = await c.active.get(runId)?.ready
  if (ready && !ready.writer.closed) return void (await ready.writer.write({ type: 'log', level, message }))
  const state = await stateOf(c, runId)
  if (state.status !== undefined) await writerOf(c, runId, state).write({ type: 'log', level, message })
}

async function settled(c: Core, runId: string, signal?: AbortSignal): Promise<RunInfo | undefined> {
  let interval = 5
  const changes = logChanges(c.storage, journalLog(runId)) // another process's appends (LISTEN/NOTIFY), where the storage tells
  try {
    for (;;) {
      const info = infoOf(runId, await stateOf(c, runId))
      if (!info || isTerminal(info.status) || (info.status === 'suspended' && !c.active.has(runId))) return info
      if (signal?.aborted) return info
      let wake!: () => void
      const woken = new Promise<void>((r) => (wake = r))
      c.waiters.add(wake)
      const stop = new AbortController()
      await Promise.race([woken, changes.wait(interval, signal ? AbortSignal.any([signal, stop.signal]) : stop.signal)])
      stop.abort()
      c.waiters.delete(wake)
      interval = Math.min(c.storage.onChange ? 1000 : 200, interval * 1.5)
    }
  } finally {
    changes.close()
  }
}
