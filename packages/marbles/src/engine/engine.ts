import { FoundryError, validator, type JsonValue, type Kernel, type Storage } from '@foundry/kernel'
import { kindOf } from '../define/brand.js'
import { defineWorkspace, type Definitions, type Runnable } from '../define/registry.js'
import { applyRecord, foldRecords, type RunState } from '../journal/fold.js'
import { readJournal, sleep } from '../journal/follow.js'
import { canMove, isTerminal, type JournalRecord, type RunStatus } from '../journal/records.js'
import { journalWriter, type JournalWriter } from '../journal/writer.js'
import { runArtifacts } from './artifacts.js'
import { followControl, sendControl } from './control.js'
import { cancelReason, journalError, shutdownReason, Suspend, timeoutReason } from './errors.js'
import { newRunId } from './ids.js'
import { acquireLease, leaseHolder, type Lease, type LeaseHolder, type LeaseOptions } from './lease.js'
import { createRunContext } from './run-context.js'
import { recordOf, RUNS, type RunRecord } from './run-record.js'

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
   */
  role?: 'auto' | 'owner' | 'reader'
  /** Execute the runs found `queued` at start-up (`marbles serve`). Default false. */
  executeQueued?: boolean
  /** How long a cancelled or timed-out run's body may take to settle before it is left behind. Default 2 000 ms. */
  graceMs?: number
  lease?: LeaseOptions
}

/** A run as its journal says: the record's fields, and its output once complete. */
export interface RunInfo extends RunRecord {
  output?: JsonValue
  /** The artifact holding a large output. */
  artifact?: string
}

export interface DispatchResult {
  runId: string
  name: string
  status: RunStatus
}

export interface Engine {
  /** This engine holds the state's lease: it executes runs. A reader dispatches and cancels through the owner. */
  readonly owner: boolean
  /** The live owner when this engine is a reader. */
  readonly holder: LeaseHolder | undefined
  readonly definitions: Definitions
  /** Create the run durably (journal, then record) and return at once; it runs in the owner. */
  dispatch(name: string, input?: unknown): Promise<DispatchResult>
  /** The run as its journal says, or undefined for an unknown id. */
  get(runId: string): Promise<RunInfo | undefined>
  /** Recent runs, newest first. */
  runs(options?: { limit?: number }): Promise<RunRecord[]>
  /** Request cancellation (`cancel_requested`, then `cancelled`); undefined for an unknown id. */
  cancel(runId: string): Promise<RunInfo | undefined>
  /** Resolves once the run is terminal or suspended (polling its journal with back-off). */
  settled(runId: string, signal?: AbortSignal): Promise<RunInfo | undefined>
  /** Runs executing in this process. */
  active(): string[]
  /** Cancel what executes here ("the engine shut down"), stop following requests, release the lease. */
  close(): Promise<void>
}

interface Active {
  controller: AbortController
  ready: Promise<{ writer: JournalWriter; state: RunState } | undefined>
  done: Promise<void>
}

/** Open an engine on a state: take its lease (or join as a reader), reconcile what a dead owner left, follow requests. */
export async function openEngine(options: EngineOptions): Promise<Engine> {
  const { storage, kernel } = options
  const definitions = options.definitions ?? defineWorkspace()
  const artifactStore = options.artifacts ?? storage
  const graceMs = options.graceMs ?? 2000
  const role = options.role ?? 'auto'

  let lease: Lease | undefined
  let holder: LeaseHolder | undefined
  if (role !== 'reader') {
    const got = await acquireLease(storage, options.lease)
    if ('refused' in got) {
      holder = got.refused
      if (role === 'owner') throw new FoundryError('CONFLICT', `Another engine owns this state (pid ${holder.pid} on ${holder.host}, since ${new Date(holder.startedAt).toISOString()}): stop it, or use it`)
    } else lease = got
  } else holder = await leaseHolder(storage, options.lease?.ttlMs)
  const owner = lease !== undefined

  const active = new Map<string, Active>()
  const wakes = new Map<string, ReturnType<typeof setTimeout>>()
  const waiters = new Set<() => void>()
  const stop = new AbortController()
  let closed = false

  const notify = () => {
    for (const wake of [...waiters]) wake()
  }

  /** Journal first (durable), then the record, then the event: nothing is published before it is journaled. */
  async function transition(runId: string, writer: JournalWriter, state: RunState, to: RunStatus, extra: Partial<Extract<JournalRecord, { type: 'status' }>> = {}): Promise<void> {
    if (state.status !== undefined ? !canMove(state.status, to) : to !== 'queued') throw new FoundryError('CONFLICT', `run ${runId} cannot go from ${state.status ?? 'nothing'} to ${to}`)
    const record = await writer.write({ type: 'status', status: to, ...extra } as never)
    applyRecord(state, record)
    await storage.put(RUNS, runId, recordOf(runId, state) as never, { durability: 'relaxed' })
    void kernel.record(`marbles.${to}`, { runId, name: state.name, ...(state.reason && { reason: state.reason }) }) // never throws; not awaited: telemetry is off the run's path
    notify()
  }

  async function create(name: string, input: unknown, resumes?: string): Promise<string> {
    const runId = newRunId()
    const state = foldRecords([])
    const writer = journalWriter(storage, runId, 0)
    await transition(runId, writer, state, 'queued', { name, input: (input ?? {}) as JsonValue, ...(resumes && { resumes }) })
    return runId
  }

  function findRunnable(name: string): Runnable {
    const def = definitions.runnables.get(name)
    if (!def) {
      const known = [...definitions.runnables.keys()].sort()
      throw new FoundryError('NOT_FOUND', `No workflow or step named "${name}"${known.length ? `; known: ${known.join(', ')}` : ' (the workspace declares none)'}`)
    }
    return def
  }

  function execute(runId: string): void {
    if (!owner || closed || active.has(runId)) return
    const controller = new AbortController()
    let resolveReady!: (v: { writer: JournalWriter; state: RunState } | undefined) => void
    const entry: Active = { controller, ready: new Promise((r) => (resolveReady = r)), done: Promise.resolve() }
    active.set(runId, entry)
    clearTimeout(wakes.get(runId))
    wakes.delete(runId)
    entry.done = (async () => {
      const state = foldRecords(await readJournal(storage, runId))
      if (state.status !== 'queued' && state.status !== 'suspended') return resolveReady(undefined)
      const writer = journalWriter(storage, runId, state.nextSeq)
      resolveReady({ writer, state })
      try {
        await runBody(runId, writer, state, controller)
      } finally {
        await writer.flush().catch(() => {})
        writer.close()
      }
    })()
      .catch((error) => process.emitWarning(`marbles: run ${runId}: ${(error as Error).message}`))
      .finally(() => {
        resolveReady(undefined)
        active.delete(runId)
        notify()
      })
  }

  async function runBody(runId: string, writer: JournalWriter, state: RunState, controller: AbortController): Promise<void> {
    const signal = controller.signal
    const name = state.name ?? '?'
    const def = definitions.runnables.get(name)
    if (signal.aborted) return settleAborted(runId, writer, state, signal.reason)
    await transition(runId, writer, state, 'running', state.status === 'suspended' ? { reason: 'timer fell due' } : state.resumes ? { reason: `resumes ${state.resumes}` } : {})
    if (!def) return transition(runId, writer, state, 'failed', { error: { name: 'NotFound', message: `no workflow or step named "${name}" in this workspace` } })

    const artifacts = runArtifacts(artifactStore, runId, name)
    let inherited: Parameters<typeof createRunContext>[0]['inherited']
    if (state.resumes) {
      const earlier = foldRecords(await readJournal(storage, state.resumes))
      inherited = { steps: earlier.steps, artifacts: runArtifacts(artifactStore, state.resumes, name) }
    }
    const ctx = createRunContext({ runId, name, signal, writer, kernel, artifacts, state, ...(inherited && { inherited }) })
    const timer = def.timeoutMs ? setTimeout(() => controller.abort(timeoutReason(`${kindOf(def)} ${name}`, def.timeoutMs!)), def.timeoutMs) : undefined
    type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }
    const body: Promise<Outcome> = Promise.resolve()
      .then(() => (kindOf(def) === 'step' ? ctx.step(def as never, state.input as never) : (def as { run(c: unknown, i: unknown): unknown }).run(ctx, state.input)))
      .then(
        (value) => ({ ok: true, value }),
        (error) => ({ ok: false, error }),
      )
    // Once aborted, the body gets `graceMs` to unwind; then it is left behind.
    const unwound = new Promise<Outcome>((resolve) =>
      signal.addEventListener('abort', () => setTimeout(() => resolve({ ok: false, error: signal.reason }), graceMs).unref(), { once: true }),
    )
    const outcome = await Promise.race([body, unwound])
    clearTimeout(timer)
    await writer.flush().catch(() => {})

    if (signal.aborted) return settleAborted(runId, writer, state, signal.reason)
    if (!outcome.ok && outcome.error instanceof Suspend) {
      await transition(runId, writer, state, 'suspended', { wakeAt: outcome.error.until })
      return scheduleWake(runId, outcome.error.until)
    }
    if (outcome.ok) {
      const stored = await artifacts.keep('output', outcome.value)
      await writer.write({ type: 'result', ...(stored.result !== undefined && { output: stored.result }), ...(stored.artifact && { artifact: stored.artifact, key: stored.key! }) })
      return transition(runId, writer, state, 'complete')
    }
    return transition(runId, writer, state, 'failed', { error: journalError(outcome.error) })
  }

  async function settleAborted(runId: string, writer: JournalWriter, state: RunState, reason: unknown): Promise<void> {
    const error = journalError(reason)
    if (error.name === 'TimeoutError' && state.status === 'running') return transition(runId, writer, state, 'failed', { reason: 'timeout', error })
    if (state.status !== 'cancel_requested') await transition(runId, writer, state, 'cancel_requested', { reason: error.message })
    return transition(runId, writer, state, 'cancelled', { reason: error.message })
  }

  function scheduleWake(runId: string, at: number): void {
    if (closed || !owner) return
    clearTimeout(wakes.get(runId))
    const wait = Math.min(Math.max(0, at - Date.now()), 2_147_483_647)
    const timer = setTimeout(() => (wakes.delete(runId), Date.now() >= at ? execute(runId) : scheduleWake(runId, at)), wait)
    timer.unref()
    wakes.set(runId, timer)
  }

  async function get(runId: string): Promise<RunInfo | undefined> {
    const state = foldRecords(await readJournal(storage, runId))
    if (state.status === undefined) return undefined
    const info: RunInfo = recordOf(runId, state)
    if (state.output?.output !== undefined) info.output = state.output.output
    if (state.output?.artifact) info.artifact = state.output.artifact
    return info
  }

  /** Cancel a run no process executes (this engine holds the lease). */
  async function cancelIdle(runId: string): Promise<void> {
    const state = foldRecords(await readJournal(storage, runId))
    if (state.status === undefined || isTerminal(state.status)) return
    const writer = journalWriter(storage, runId, state.nextSeq)
    const why = state.status === 'running' || state.status === 'cancel_requested' ? 'cancelled; the engine running it had stopped' : 'cancelled by request'
    if (state.status !== 'cancel_requested') await transition(runId, writer, state, 'cancel_requested', { reason: 'cancelled by request' })
    await transition(runId, writer, state, 'cancelled', { reason: why })
    clearTimeout(wakes.get(runId))
    wakes.delete(runId)
  }

  async function cancel(runId: string): Promise<RunInfo | undefined> {
    const running = active.get(runId)
    if (running) {
      const ready = await running.ready
      if (ready && !isTerminal(ready.state.status!) && ready.state.status !== 'cancel_requested' && !running.controller.signal.aborted)
        await transition(runId, ready.writer, ready.state, 'cancel_requested', { reason: 'cancelled by request' })
      running.controller.abort(cancelReason())
      await running.done
      return get(runId)
    }
    const info = await get(runId)
    if (!info || isTerminal(info.status)) return info
    if (owner) await cancelIdle(runId)
    else if (await leaseHolder(storage, options.lease?.ttlMs)) await sendControl(storage, { type: 'cancel', runId })
    else {
      // No engine owns the state: take the lease for as long as the cancellation takes.
      const got = await acquireLease(storage, options.lease)
      if ('refused' in got) await sendControl(storage, { type: 'cancel', runId })
      else
        try {
          await cancelIdle(runId)
        } finally {
          await got.release()
        }
    }
    return get(runId)
  }

  async function reconcile(): Promise<void> {
    const ids = new Set(await storage.keys(RUNS))
    for (const log of await storage.logs('marbles/run-')) ids.add(log.slice('marbles/'.length))
    for (const runId of ids) {
      const cached = (await storage.get(RUNS, runId)) as RunRecord | undefined
      if (cached && isTerminal(cached.status)) continue
      const state = foldRecords(await readJournal(storage, runId))
      if (state.status === undefined) continue
      if (!cached || cached.status !== state.status) await storage.put(RUNS, runId, recordOf(runId, state) as never, { durability: 'relaxed' })
      const writer = journalWriter(storage, runId, state.nextSeq)
      if (state.status === 'running') {
        const def = definitions.runnables.get(state.name ?? '')
        const interrupted = { name: 'Interrupted', message: `the engine running it stopped before it settled` }
        if (def && kindOf(def) === 'workflow' && (def as { resumable: boolean }).resumable) {
          const linked = await create(state.name!, state.input, runId)
          await transition(runId, writer, state, 'failed', { reason: 'interrupted', error: interrupted, resumedBy: linked })
          execute(linked)
        } else await transition(runId, writer, state, 'failed', { reason: 'interrupted', error: interrupted })
      } else if (state.status === 'cancel_requested') await transition(runId, writer, state, 'cancelled', { reason: 'interrupted' })
      else if (state.status === 'suspended') scheduleWake(runId, state.wakeAt ?? Date.now())
      else if (state.status === 'queued' && options.executeQueued) execute(runId)
    }
  }

  if (owner) {
    try {
      await reconcile()
    } catch (error) {
      await lease!.release()
      throw error
    }
    void followControl(storage, stop.signal, (request) => (request.type === 'dispatch' ? execute(request.runId) : void cancel(request.runId).catch(() => {})))
    lease!.lost.addEventListener('abort', () => {
      for (const run of active.values()) run.controller.abort(shutdownReason())
    })
  }

  return {
    owner,
    holder,
    definitions,
    async dispatch(name, input = {}) {
      if (closed) throw new FoundryError('UNAVAILABLE', 'The engine is closed')
      const def = options.definitions ? findRunnable(name) : undefined
      const valid = def?.input ? validator(def.input).parse(input, `input of ${kindOf(def)} ${name}`) : input
      const runId = await create(name, valid)
      if (owner) setImmediate(() => execute(runId))
      else await sendControl(storage, { type: 'dispatch', runId })
      return { runId, name, status: 'queued' }
    },
    get,
    async runs({ limit = 20 } = {}) {
      const records = (await storage.list(RUNS)) as unknown as RunRecord[]
      return records.sort((a, b) => b.createdAt - a.createdAt).slice(0, limit)
    },
    cancel,
    async settled(runId, signal) {
      let interval = 5
      for (;;) {
        const info = await get(runId)
        if (!info || isTerminal(info.status) || (info.status === 'suspended' && !active.has(runId))) return info
        if (signal?.aborted) return info
        let wake!: () => void
        const woken = new Promise<void>((r) => (wake = r))
        waiters.add(wake)
        await Promise.race([woken, sleep(interval, signal)])
        waiters.delete(wake)
        interval = Math.min(200, interval * 1.5)
      }
    },
    active: () => [...active.keys()],
    async close() {
      if (closed) return
      closed = true
      stop.abort()
      for (const timer of wakes.values()) clearTimeout(timer)
      wakes.clear()
      for (const run of active.values()) run.controller.abort(shutdownReason())
      await Promise.all([...active.values()].map((run) => run.done))
      await lease?.release()
    },
  }
}

