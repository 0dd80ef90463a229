import { FoundryError } from '@foundry/kernel'
import type { RunState } from '../journal/fold.js'
import { isTerminal } from '../journal/records.js'
import { followControl, sendControl, type ControlRequest } from './control.js'
import type { EngineCore } from './core.js'
import { shutdownReason } from './errors.js'
import type { Executor } from './executor.js'
import { acquireLease, leaseHolder, type Lease, type LeaseHolder, type LeaseOptions } from './lease.js'
import { recordOf, RUNS } from './run-record.js'

export interface LeaseExecutorOptions {
  /**
   * `auto`: own the state when no live process does, else join as a reader.
   * `owner`: throw CONFLICT when another process owns it. `reader`: never own it.
   */
  role: 'auto' | 'owner' | 'reader'
  /** Execute the runs found `queued` when taking the lease. */
  executeQueued: boolean
  lease?: LeaseOptions
}

/** An executor on the state's lease: its holder executes every run; readers send it requests on the control log. */
export interface LeaseExecutor extends Executor {
  /** This process holds the lease. */
  readonly owner: boolean
  /** The live holder, when this process is a reader. */
  readonly holder: LeaseHolder | undefined
}

/** What the holder's functions share: the core, the lease (undefined in a reader) and the wake-up timers of suspended runs. */
interface Holder {
  core: EngineCore
  lease: Lease | undefined
  wakes: Map<string, ReturnType<typeof setTimeout>>
  executeQueued: boolean
}

/** Take the state's lease (or join as a reader); `start()` then reconciles what a dead owner left and follows requests. */
export async function openLeaseExecutor(core: EngineCore, options: LeaseExecutorOptions): Promise<LeaseExecutor> {
  const { storage } = core
  let lease: Lease | undefined
  let holder: LeaseHolder | undefined
  if (options.role !== 'reader') {
    const got = await acquireLease(storage, options.lease)
    if ('refused' in got) {
      holder = got.refused
      if (options.role === 'owner') throw new FoundryError('CONFLICT', `Another engine owns this state (pid ${holder.pid} on ${holder.host}, since ${new Date(holder.startedAt).toISOString()}): stop it, or use it`)
    } else lease = got
  } else holder = await leaseHolder(storage, options.lease?.ttlMs)
  const h: Holder = { core, lease, wakes: new Map(), executeQueued: options.executeQueued }
  const stop = new AbortController()

  return {
    owner: lease !== undefined,
    holder,
    async dispatch(runId) {
      if (lease) setImmediate(() => void execute(h, runId))
      else await sendControl(storage, { type: 'dispatch', runId })
    },
    async wake(runId) {
      if (lease) setImmediate(() => void wakeHere(h, runId))
      else await sendControl(storage, { type: 'dispatch', runId })
    },
    async cancel(runId, state) {
      if (lease) return cancelHere(h, runId, state)
      if (await leaseHolder(storage, options.lease?.ttlMs)) return sendControl(storage, { type: 'cancel', runId })
      // No engine owns the state: take the lease for as long as the cancellation takes.
      const got = await acquireLease(storage, options.lease)
      if ('refused' in got) return sendControl(storage, { type: 'cancel', runId })
      try {
        await cancelHere(h, runId, await core.stateOf(runId))
      } finally {
        await got.release()
      }
    },
    async start() {
      if (!lease) return
      try {
        await reconcile(h)
      } catch (error) {
        await lease.release()
        throw error
      }
      void followControl(storage, stop.signal, (request) => onRequest(h, request), (request, error) => void requestFailed(h, request, error))
      lease.lost.addEventListener('abort', () => core.abortAll(shutdownReason()))
    },
    async close() {
      stop.abort()
      for (const timer of h.wakes.values()) clearTimeout(timer)
      h.wakes.clear()
      await core.shutdown(shutdownReason())
      await lease?.release()
    },
  }
}

function clearWake(h: Holder, runId: string): void {
  clearTimeout(h.wakes.get(runId))
  h.wakes.delete(runId)
}

/** Execute the run here (the holder only); a run that suspends gets a wake-up timer. */
function execute(h: Holder, runId: string): Promise<void> {
  if (!h.lease || h.core.closed) return Promise.resolve()
  if (!h.core.active().includes(runId)) clearWake(h, runId)
  return h.core.execute(runId, { suspended: (id, _name, _key, until) => scheduleWake(h, id, until) })
}

/** Execute a run woken by its signal; one still settling here (its suspension in flight) is executed again once it has. */
async function wakeHere(h: Holder, runId: string): Promise<void> {
  const settling = h.core.active().includes(runId)
  await execute(h, runId)
  if (settling) await execute(h, runId)
}

function scheduleWake(h: Holder, runId: string, at: number | undefined): void {
  if (h.core.closed || !h.lease || at === undefined) return
  clearTimeout(h.wakes.get(runId))
  const wait = Math.min(Math.max(0, at - Date.now()), 2_147_483_647)
  const timer = setTimeout(() => (h.wakes.delete(runId), Date.now() >= at ? void execute(h, runId) : scheduleWake(h, runId, at)), wait)
  timer.unref()
  h.wakes.set(runId, timer)
}

/** Cancel a run no process executes (this process holds the lease). */
async function cancelHere(h: Holder, runId: string, state: RunState): Promise<void> {
  await h.core.cancelIdle(runId, state)
  clearWake(h, runId)
}

/** A request from a reader on the control log: a dispatch executes in the background; a cancellation resolves once done. */
async function onRequest(h: Holder, request: ControlRequest): Promise<void> {
  if (request.type === 'dispatch') return void wakeHere(h, request.runId)
  if (!(await h.core.cancelActive(request.runId))) await cancelHere(h, request.runId, await h.core.stateOf(request.runId))
}

/** A request this holder failed to handle: an `error` line in the run's journal and a warning on the log. */
async function requestFailed(h: Holder, request: ControlRequest, error: unknown): Promise<void> {
  const message = `the ${request.type} requested through the control log failed: ${error instanceof Error ? error.message : String(error)}`
  process.emitWarning(`marbles: run ${request.runId}: ${message}`)
  await h.core.note(request.runId, 'error', message).catch(() => {}) // the journal may be what failed: the warning stands
}

/** Every run not terminal, as a dead owner may have left it: settled, resumed, woken or executed. */
async function reconcile(h: Holder): Promise<void> {
  const { core } = h
  const { storage } = core
  const ids = new Set(await storage.keys(RUNS))
  for (const log of await storage.logs('marbles/run-')) ids.add(log.slice('marbles/'.length))
  for (const runId of ids) {
    const cached = await storage.get(RUNS, runId)
    if (cached && isTerminal(cached.status)) continue
    const state = await core.stateOf(runId)
    if (state.status === undefined) continue
    if (!cached || cached.status !== state.status) await storage.put(RUNS, runId, recordOf(runId, state), { durability: 'relaxed' })
    const writer = core.writer(runId, state)
    if (state.status === 'running') {
      const interrupted = { name: 'Interrupted', message: `the engine running it stopped before it settled` }
      if (core.resumable(state.name)) {
        const linked = await core.create(state.name!, state.input, runId)
        await core.transition(runId, writer, state, 'failed', { reason: 'interrupted', error: interrupted, resumedBy: linked })
        void execute(h, linked)
      } else await core.transition(runId, writer, state, 'failed', { reason: 'interrupted', error: interrupted })
    } else if (state.status === 'cancel_requested') await core.transition(runId, writer, state, 'cancelled', { reason: 'interrupted' })
    else if (state.status === 'suspended' && state.waitFor) {
      void execute(h, runId) // a signal sent while no engine ran it starts it now; else it waits on
      scheduleWake(h, runId, state.waitFor.until)
    } else if (state.status === 'suspended') scheduleWake(h, runId, state.wakeAt ?? Date.now())
    else if (state.status === 'queued' && h.executeQueued) void execute(h, runId)
  }
}
