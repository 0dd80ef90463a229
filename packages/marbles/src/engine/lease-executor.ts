import { FoundryError } from '@foundry/kernel'
import type { RunState } from '../journal/fold.js'
import { isTerminal } from '../journal/records.js'
import { followControl, sendControl, type ControlRequest } from './control.js'
import type { EngineCore } from './core.js'
import { shutdownReason } from './errors.js'
import type { Executor } from './executor.js'
import { acquireLease, leaseHolder, type Lease, type LeaseHolder, type LeaseOptions } from './lease.js'
import { recordOf, RUNS, type RunRecord } from './run-record.js'
import { RUN_LEASES, runLeases, type RunLeases } from './run-lease.js'
import { createRunSlots, type RunSlots } from './run-slots.js'
import { admit, hasLimits, release } from './admission.js'

export interface LeaseExecutorOptions {
  /**
   * `auto`: own the state when no live process does, else join as a reader.
   * `owner`: throw CONFLICT when another process owns it. `reader`: never own it.
   * `local`: never own it, and execute this engine's own dispatches here (`marbles mcp`).
   */
  role: 'auto' | 'owner' | 'reader' | 'local'
  /** Execute the runs found `queued` when taking the lease. */
  executeQueued: boolean
  /** Runs this engine executes at once; the others wait their turn, in order. Default `DEFAULT_CONCURRENCY`. */
  concurrency?: number
  lease?: LeaseOptions
}

/**
 * An executor on the state's lease: its holder executes the runs dispatched by readers, which send it
 * requests on the control log; a `local` engine executes its own dispatches. Whoever executes a run
 * holds its run lease (`run-lease.ts`) while it runs or waits on a timer, so engines never execute one
 * twice and a run whose executor died is told apart from one that runs.
 */
export interface LeaseExecutor extends Executor {
  /** This process holds the lease. */
  readonly owner: boolean
  /** The live holder, when this process is a reader. */
  readonly holder: LeaseHolder | undefined
}

/** What the executor's functions share: the core, the state's lease (undefined unless owning), the run leases and the wake-up timers of suspended runs. */
interface Holder {
  core: EngineCore
  lease: Lease | undefined
  /** This engine executes its own dispatches without owning the state (`local`). */
  local: boolean
  runs: RunLeases
  wakes: Map<string, ReturnType<typeof setTimeout>>
  executeQueued: boolean
  slots: RunSlots
}

/** Take the state's lease (or join as a reader); `start()` then reconciles what a dead owner left and follows requests. */
export async function openLeaseExecutor(core: EngineCore, options: LeaseExecutorOptions): Promise<LeaseExecutor> {
  const { storage } = core
  let lease: Lease | undefined
  let holder: LeaseHolder | undefined
  if (options.role !== 'reader' && options.role !== 'local') {
    const got = await acquireLease(storage, options.lease)
    if ('refused' in got) {
      holder = got.refused
      if (options.role === 'owner')
        throw new FoundryError(
          'CONFLICT',
          `Another engine owns this state (pid ${holder.pid} on ${holder.host}, since ${new Date(holder.startedAt).toISOString()}): stop it, or use it`,
        )
    } else lease = got
  } else holder = await leaseHolder(storage, options.lease?.ttlMs)
  const h: Holder = {
    core,
    lease,
    local: options.role === 'local',
    runs: runLeases(storage, options.lease),
    wakes: new Map(),
    executeQueued: options.executeQueued,
    slots: createRunSlots(options.concurrency),
  }
  const stop = new AbortController()

  return {
    owner: lease !== undefined,
    holder,
    async reserve(runId) {
      if (h.local) await h.runs.claim(runId) // before the run exists: no owner reconciling the state can take it
    },
    async dispatch(runId) {
      if (lease || h.local) setImmediate(() => void execute(h, runId))
      else await sendControl(storage, { type: 'dispatch', runId })
    },
    async wake(runId) {
      // Here unless another live engine holds the run (waiting on its deadline there): then that one wakes it.
      if (h.runs.holds(runId) || ((lease || h.local) && !(await h.runs.heldElsewhere(runId))))
        setImmediate(() => void wakeHere(h, runId))
      else await sendControl(storage, { type: 'dispatch', runId })
    },
    async cancel(runId, state) {
      if (h.runs.holds(runId)) return cancelHere(h, runId, state)
      if (await h.runs.heldElsewhere(runId)) return sendControl(storage, { type: 'cancel', runId })
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
      if (!lease && !h.local) return
      try {
        await reconcile(h)
      } catch (error) {
        await lease?.release()
        throw error
      }
      void followControl(
        storage,
        stop.signal,
        (request) => onRequest(h, request),
        (request, error) => void requestFailed(h, request, error),
      )
      lease?.lost.addEventListener('abort', () => core.abortAll(shutdownReason()))
    },
    async close() {
      stop.abort()
      h.slots.clear()
      for (const timer of h.wakes.values()) clearTimeout(timer)
      h.wakes.clear()
      await core.shutdown(shutdownReason())
      await h.runs.close()
      await lease?.release()
    },
  }
}

function clearWake(h: Holder, runId: string): void {
  clearTimeout(h.wakes.get(runId))
  h.wakes.delete(runId)
}

/** Execute the run here once a slot is free (see `executeNow`). */
function execute(h: Holder, runId: string): void {
  if ((!h.lease && !h.local) || h.core.closed || h.core.active().includes(runId)) return
  h.slots.admit(runId, () => executeNow(h, runId))
}

/**
 * Execute the run under its run lease (none when another live process holds it), once its workflow's
 * limits admit it (else it keeps its run lease and asks again on a timer); a run that suspends keeps
 * it, with a wake-up timer.
 */
async function executeNow(h: Holder, runId: string): Promise<void> {
  if (h.core.closed || !(await h.runs.claim(runId).catch(() => false))) return
  try {
    if (!h.core.active().includes(runId)) clearWake(h, runId)
    await admitted(h, runId)
  } finally {
    if (!h.wakes.has(runId) && !h.core.active().includes(runId)) await h.runs.release(runId).catch(() => {})
  }
}

/** A workflow with concurrency or rate limits is admitted across processes first, else asked again when its hold may end. */
async function admitted(h: Holder, runId: string): Promise<void> {
  const run = () => h.core.execute(runId, { suspended: (id, _name, _key, until) => scheduleWake(h, id, until) })
  if (!hasLimits(h.core.definitions)) return run()
  const state = await h.core.stateOf(runId)
  if (state.status !== 'queued' && state.status !== 'suspended') return run()
  const def = h.core.definitions.runnables.get(state.name ?? '')
  const verdict = await admit(h.core.storage, def, runId, state)
  if (!verdict.admitted) return scheduleWake(h, runId, verdict.retryAt)
  try {
    await run()
  } finally {
    await release(h.core.storage, def, runId, state).catch(() => {}) // a slot left behind is freed once the run is seen settled
  }
}

/** Execute a run woken by its signal; one still settling here (its suspension in flight) is executed again once it has. */
async function wakeHere(h: Holder, runId: string): Promise<void> {
  if (h.core.active().includes(runId)) await h.core.settled(runId)
  execute(h, runId)
}

function scheduleWake(h: Holder, runId: string, at: number | undefined): void {
  if (h.core.closed || (!h.lease && !h.local) || at === undefined) return
  clearTimeout(h.wakes.get(runId))
  const wait = Math.min(Math.max(0, at - Date.now()), 2_147_483_647)
  const timer = setTimeout(
    () => (h.wakes.delete(runId), Date.now() >= at ? execute(h, runId) : scheduleWake(h, runId, at)),
    wait,
  )
  timer.unref()
  h.wakes.set(runId, timer)
}

/** Cancel a run no process executes (this process owns the state, or holds the run's lease). */
async function cancelHere(h: Holder, runId: string, state: RunState): Promise<void> {
  await h.core.cancelIdle(runId, state)
  clearWake(h, runId)
  await h.runs.release(runId)
}

/**
 * A request on the control log. A dispatch is the owner's to execute, in the background. A
 * cancellation is handled by whoever holds the run, else by the owner unless another live process
 * holds it; it resolves once done.
 */
async function onRequest(h: Holder, request: ControlRequest): Promise<void> {
  const { runId } = request
  // A dispatch (or a signal's wake-up) is the owner's to execute, or the holder's of a run waiting here on a deadline.
  if (request.type === 'dispatch') return void ((h.lease || h.runs.holds(runId)) && wakeHere(h, runId))
  if (await h.core.cancelActive(runId)) return
  if (h.runs.holds(runId) || (h.lease && !(await h.runs.heldElsewhere(runId))))
    await cancelHere(h, runId, await h.core.stateOf(runId))
}

/** A request this holder failed to handle: an `error` line in the run's journal and a warning on the log. */
async function requestFailed(h: Holder, request: ControlRequest, error: unknown): Promise<void> {
  const message = `the ${request.type} requested through the control log failed: ${error instanceof Error ? error.message : String(error)}`
  process.emitWarning(`marbles: run ${request.runId}: ${message}`)
  await h.core.note(request.runId, 'error', message).catch(() => {}) // the journal may be what failed: the warning stands
}

/**
 * Every run not terminal, as a dead engine may have left it: settled, resumed, woken or executed.
 * The owner looks at every run no live process holds; a `local` engine only at those whose run lease
 * names a dead process. Each is taken (its run lease) before it is touched, so two engines never both.
 */
async function reconcile(h: Holder): Promise<void> {
  const { core } = h
  const { storage } = core
  const ids = new Set(await storage.keys(RUNS))
  for (const log of await storage.logs('marbles/run-')) ids.add(log.slice('marbles/'.length))
  const found: Array<{ runId: string; cached: RunRecord | undefined }> = []
  for (const runId of ids) found.push({ runId, cached: await storage.get(RUNS, runId) })
  // Oldest first: queued runs start in the order they were dispatched (ids are random).
  found.sort((a, b) => (a.cached?.createdAt ?? 0) - (b.cached?.createdAt ?? 0))
  for (const { runId, cached } of found) {
    if (cached && isTerminal(cached.status)) continue
    if (!h.lease && !(await storage.get(RUN_LEASES, runId))) continue
    if (!(await h.runs.claim(runId))) continue
    const kept = await reconcileRun(h, runId, cached).catch(async (error: unknown) => {
      await h.runs.release(runId)
      throw error
    })
    if (!kept) await h.runs.release(runId)
  }
}

/** Settle, resume, wake or execute one run this engine just took; true when it keeps the run (executing it, or waiting on its timer). */
async function reconcileRun(h: Holder, runId: string, cached: RunRecord | undefined): Promise<boolean> {
  const { core } = h
  const { storage } = core
  const state = await core.stateOf(runId)
  if (state.status === undefined) return false
  if (!cached || cached.status !== state.status)
    await storage.put(RUNS, runId, recordOf(runId, state), { durability: 'relaxed' })
  const writer = core.writer(runId, state)
  if (state.status === 'running') {
    const interrupted = { name: 'Interrupted', message: `the engine running it stopped before it settled` }
    if (core.resumable(state.name)) {
      const linked = await core.create(state.name!, state.input, runId)
      await core.transition(runId, writer, state, 'failed', {
        reason: 'interrupted',
        error: interrupted,
        resumedBy: linked,
      })
      void execute(h, linked)
    } else await core.transition(runId, writer, state, 'failed', { reason: 'interrupted', error: interrupted })
  } else if (state.status === 'cancel_requested')
    await core.transition(runId, writer, state, 'cancelled', { reason: 'interrupted' })
  else if (state.status === 'suspended' && state.waitFor) {
    // A signal sent while no engine ran it starts it now; else it waits on (held here only for its deadline: execute releases it otherwise).
    scheduleWake(h, runId, state.waitFor.until)
    return (void execute(h, runId), true)
  } else if (state.status === 'suspended') return (scheduleWake(h, runId, state.wakeAt ?? Date.now()), true)
  // A run left queued: the owner of `serve` starts it; so does a `local` engine, here only for a dead engine's launch (its run lease names a dead process).
  else if (state.status === 'queued' && (h.executeQueued || h.local)) return (void execute(h, runId), true)
  return false
}
