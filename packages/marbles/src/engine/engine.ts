import { FoundryError, validator, type JsonValue, type Kernel, type Storage } from '@foundry/kernel'
import { kindOf } from '../define/brand.js'
import { defineWorkspace, type Definitions, type Runnable } from '../define/registry.js'
import { applyRecord, foldRecords, type RunState } from '../journal/fold.js'
import { logChanges, readJournal } from '../journal/follow.js'
import { canMove, isTerminal, journalLog, type JournalRecord, type RunStatus } from '../journal/records.js'
import { journalWriter, type JournalWriter } from '../journal/writer.js'
import { runArtifacts } from './artifacts.js'
import { followControl, sendControl } from './control.js'
import { cancelReason, claimLostReason, isClaimLost, journalError, shutdownReason, Suspend, timeoutReason } from './errors.js'
import { newRunId } from './ids.js'
import { acquireLease, leaseHolder, type Lease, type LeaseHolder, type LeaseOptions } from './lease.js'
import { createRunContext } from './run-context.js'
import { JOBS, recordOf, RUNS, type JobEntry, type RunRecord } from './run-record.js'
import type { JobPolicy, RunJob, RunQueue } from '../queue/queue.js'

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
  /**
   * Dispatch through a job queue (pg-boss on PostgreSQL) instead of the lease: `dispatch` enqueues a
   * job, and engines calling `work()`, in any process on any machine, execute the runs. No lease is taken.
   */
  queue?: RunQueue
}

export interface WorkerOptions {
  /** The workflows and steps whose runs this process executes. Default: every one it declares. */
  workflows?: string[]
  /** Runs executed at once, per workflow. Default 4. */
  concurrency?: number
  /** On `close()`: how long runs in hand may take to finish before their jobs go back to the queue. Default 10 000 ms. */
  drainMs?: number
  /** How often runs whose job ended without settling them are looked for. Default 15 000 ms. */
  sweepMs?: number
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
  /**
   * With a queue: execute the jobs of these workflows, in this process, until `close()` (which stops
   * taking jobs and lets those in hand finish for `drainMs`). Re-enqueues runs left queued without a job.
   */
  work(options?: WorkerOptions): Promise<void>
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
  const queue = options.queue

  let lease: Lease | undefined
  let holder: LeaseHolder | undefined
  if (queue) {
    // No lease: the queue says who executes each run.
  } else if (role !== 'reader') {
    const got = await acquireLease(storage, options.lease)
    if ('refused' in got) {
      holder = got.refused
      if (role === 'owner') throw new FoundryError('CONFLICT', `Another engine owns this state (pid ${holder.pid} on ${holder.host}, since ${new Date(holder.startedAt).toISOString()}): stop it, or use it`)
    } else lease = got
  } else holder = await leaseHolder(storage, options.lease?.ttlMs)
  const owner = lease !== undefined
  let working: WorkerOptions | undefined
  let sweeper: ReturnType<typeof setInterval> | undefined

  const active = new Map<string, Active>()
  const wakes = new Map<string, ReturnType<typeof setTimeout>>()
  const waiters = new Set<() => void>()
  /** Runs executed under a queue job: whether the job is still this worker's. */
  const holds = new Map<string, () => Promise<boolean>>()
  const stop = new AbortController()
  let closed = false

  const notify = () => {
    for (const wake of [...waiters]) wake()
  }

  /** Journal first (durable), then the record, then the event: nothing is published before it is journaled. */
  async function transition(runId: string, writer: JournalWriter, state: RunState, to: RunStatus, extra: Partial<Extract<JournalRecord, { type: 'status' }>> = {}): Promise<void> {
    if (state.status !== undefined ? !canMove(state.status, to) : to !== 'queued') throw new FoundryError('CONFLICT', `run ${runId} cannot go from ${state.status ?? 'nothing'} to ${to}`)
    // A queue worker journals an outcome only while it holds the run's job (one that froze and thawed may not any more).
    const held = holds.get(runId)
    if (held && (to === 'complete' || to === 'failed' || to === 'suspended') && !(await held())) {
      writer.close()
      throw claimLostReason()
    }
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

  /**
   * Execute a queued or suspended run here. With `job` (a queue worker), the start is taken inside the
   * storage's exclusive section, so a cancellation of a run no worker holds yet and its start never
   * both happen; the job's signal aborts the run (cancelled), or stops this process writing its journal
   * (the job is no longer ours: retried elsewhere or expired, and the next holder settles the run).
   */
  function execute(runId: string, job?: RunJob): Promise<void> {
    const running = active.get(runId)
    if (running) return running.done
    if (!(owner || job) || closed) return Promise.resolve()
    const controller = new AbortController()
    let resolveReady!: (v: { writer: JournalWriter; state: RunState } | undefined) => void
    const entry: Active = { controller, ready: new Promise((r) => (resolveReady = r)), done: Promise.resolve() }
    active.set(runId, entry)
    clearTimeout(wakes.get(runId))
    wakes.delete(runId)
    let writer: JournalWriter | undefined
    const onJobAbort = () =>
      void job!.cancelled().then((cancelled) => {
        if (cancelled) return controller.abort(cancelReason())
        writer?.close() // not ours any more: whoever holds the job now writes the journal
        controller.abort(claimLostReason())
      })
    job?.signal.addEventListener('abort', onJobAbort, { once: true })
    if (job) holds.set(runId, () => job.held())
    entry.done = (async () => {
      const start = async () => {
        const state = foldRecords(await readJournal(storage, runId))
        if (state.status !== 'queued' && state.status !== 'suspended') return undefined
        const w = journalWriter(storage, runId, state.nextSeq)
        if (controller.signal.aborted) {
          if (!isClaimLost(controller.signal.reason)) await settleAborted(runId, w, state, controller.signal.reason)
          return undefined
        }
        await transition(runId, w, state, 'running', state.status === 'suspended' ? { reason: 'timer fell due' } : state.resumes ? { reason: `resumes ${state.resumes}` } : {})
        return { writer: w, state }
      }
      const started = job ? await storage.exclusive(start) : await start()
      resolveReady(started)
      if (!started) return
      writer = started.writer
      try {
        await runBody(runId, started.writer, started.state, controller)
      } finally {
        await started.writer.flush().catch(() => {})
        started.writer.close()
      }
    })()
      .catch((error) => void (isClaimLost(error) || process.emitWarning(`marbles: run ${runId}: ${(error as Error).message}`)))
      .finally(() => {
        holds.delete(runId)
        job?.signal.removeEventListener('abort', onJobAbort)
        resolveReady(undefined)
        active.delete(runId)
        notify()
      })
    return entry.done
  }

  async function runBody(runId: string, writer: JournalWriter, state: RunState, controller: AbortController): Promise<void> {
    const signal = controller.signal
    const name = state.name ?? '?'
    const def = definitions.runnables.get(name)
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

    if (signal.aborted) return isClaimLost(signal.reason) ? undefined : settleAborted(runId, writer, state, signal.reason)
    if (!outcome.ok && outcome.error instanceof Suspend) {
      const wakeKey = `wake-${state.nextSeq}`
      await transition(runId, writer, state, 'suspended', { wakeAt: outcome.error.until })
      if (queue) return enqueueRun(runId, name, wakeKey, runId, outcome.error.until)
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
    const timer = setTimeout(() => (wakes.delete(runId), Date.now() >= at ? void execute(runId) : scheduleWake(runId, at)), wait)
    timer.unref()
    wakes.set(runId, timer)
  }

  /** A workflow's job policy: a resumable one is retried (its next attempt resumes it in a linked run), and `timeoutMs` sets the hard timeout. */
  function policyOf(name: string, startAfter?: number): JobPolicy {
    const def = definitions.runnables.get(name)
    const timeoutMs = def?.timeoutMs
    return {
      retryLimit: def && kindOf(def) === 'workflow' && (def as { resumable: boolean }).resumable ? 2 : 0,
      // The engine's own timer fails the run at `timeoutMs`; the queue expires the job (a frozen or stuck worker) a little later.
      expireInSeconds: timeoutMs ? Math.min(86_400, Math.ceil((timeoutMs + graceMs) / 1000) + 2) : 86_400,
      ...(startAfter !== undefined && { startAfter: new Date(startAfter) }),
    }
  }

  /** Record which job carries the run (a canceller reads it), then create the job: idempotent, its id derives from the run and `key`. */
  async function enqueueRun(runId: string, name: string, key: string, carrier = runId, startAfter?: number, requeues?: number): Promise<void> {
    const entry: JobEntry = { ...queue!.jobRef(name, carrier, key), runId: carrier, ...(requeues && { requeues }) }
    await storage.put(JOBS, runId, entry as never)
    await queue!.enqueue(entry, policyOf(name, startAfter))
  }

  /** A job in this worker's hands: settle what the previous attempt left, then execute the run at the head of its resume chain. */
  async function runJob(job: RunJob): Promise<void> {
    let runId = job.runId
    let state = foldRecords(await readJournal(storage, runId))
    while (state.status === 'failed' && state.resumedBy) {
      runId = state.resumedBy
      state = foldRecords(await readJournal(storage, runId))
    }
    if (state.status === undefined || isTerminal(state.status)) return
    if (job.dead || state.status === 'running' || state.status === 'cancel_requested') {
      const linked = await settleAbandoned(runId, state, job)
      if (!linked) return
      runId = linked
    }
    await execute(runId, job)
  }

  /**
   * A run whose job's last attempt ended without settling it (its worker was killed or froze, or the
   * job expired), or whose job failed for good (`dead`). A running run becomes `failed` (`timeout` when
   * the job expired, else `interrupted`); a resumable one, on a retry, `failed` with a linked run that
   * resumes it, returned for this attempt to execute. A run that never ran is cancelled.
   */
  async function settleAbandoned(runId: string, state: RunState, job: RunJob): Promise<string | undefined> {
    const writer = journalWriter(storage, runId, state.nextSeq)
    const why = job.previous ?? 'its worker stopped beating'
    if (state.status === 'cancel_requested') return void (await transition(runId, writer, state, 'cancelled', { reason: 'interrupted' }))
    if (state.status === 'queued' || state.status === 'suspended') {
      // It never ran under this job (its worker died between taking the job and starting the run): a new job, three times at most.
      const entry = (await storage.get(JOBS, runId)) as JobEntry | undefined
      const requeues = (entry?.requeues ?? 0) + 1
      if (requeues <= 3) return void (await enqueueRun(runId, state.name!, `requeue-${requeues}`, runId, state.status === 'suspended' ? state.wakeAt : undefined, requeues))
    }
    if (state.status !== 'running') {
      await transition(runId, writer, state, 'cancel_requested', { reason: `its job failed: ${why}` })
      return void (await transition(runId, writer, state, 'cancelled', { reason: `its job failed: ${why}` }))
    }
    const timedOut = /timed out|exceeded/i.test(why)
    const error = timedOut ? { name: 'TimeoutError', message: `the job expired (${why})` } : { name: 'Interrupted', message: `the worker running it stopped before it settled (${why})` }
    const def = definitions.runnables.get(state.name ?? '')
    if (!job.dead && !timedOut && def && kindOf(def) === 'workflow' && (def as { resumable: boolean }).resumable) {
      const linked = await create(state.name!, state.input, runId)
      const carrier = (await storage.get(JOBS, runId)) as JobEntry | undefined
      if (carrier) await storage.put(JOBS, linked, carrier as never)
      await transition(runId, writer, state, 'failed', { reason: 'interrupted', error, resumedBy: linked })
      return linked
    }
    await transition(runId, writer, state, 'failed', { reason: timedOut ? 'timeout' : 'interrupted', error })
    return undefined
  }

  /** Runs left queued or suspended whose job was never created (the dispatcher died in between): create it (idempotent). */
  async function sweep(): Promise<void> {
    for (const record of (await storage.list(RUNS)) as unknown as RunRecord[]) {
      if (record.status !== 'queued' && record.status !== 'suspended') continue
      const entry = (await storage.get(JOBS, record.id)) as JobEntry | undefined
      if (entry && record.status === 'queued' && entry.runId !== record.id) continue // a linked run: its carrier job runs it
      const state = foldRecords(await readJournal(storage, record.id))
      if (state.status !== record.status) continue
      if (entry) await queue!.enqueue(entry, policyOf(record.name, state.status === 'suspended' ? state.wakeAt : undefined))
      else await enqueueRun(record.id, record.name, 'start')
    }
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
    if (queue) {
      // A worker holding the job sees its signal abort and settles the run; a run no worker holds yet is settled here.
      const entry = (await storage.get(JOBS, runId)) as JobEntry | undefined
      if (entry) await queue.cancel(entry)
      await storage.exclusive(async () => {
        const state = foldRecords(await readJournal(storage, runId))
        if (state.status === 'queued' || state.status === 'suspended') await cancelIdle(runId)
      })
      return get(runId)
    }
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
          void execute(linked)
        } else await transition(runId, writer, state, 'failed', { reason: 'interrupted', error: interrupted })
      } else if (state.status === 'cancel_requested') await transition(runId, writer, state, 'cancelled', { reason: 'interrupted' })
      else if (state.status === 'suspended') scheduleWake(runId, state.wakeAt ?? Date.now())
      else if (state.status === 'queued' && options.executeQueued) void execute(runId)
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
      if (queue) await enqueueRun(runId, name, 'start')
      else if (owner) setImmediate(() => void execute(runId))
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
      const changes = logChanges(storage, journalLog(runId)) // another process's appends (LISTEN/NOTIFY), where the storage tells
      try {
        for (;;) {
          const info = await get(runId)
          if (!info || isTerminal(info.status) || (info.status === 'suspended' && !active.has(runId))) return info
          if (signal?.aborted) return info
          let wake!: () => void
          const woken = new Promise<void>((r) => (wake = r))
          waiters.add(wake)
          const stop = new AbortController()
          await Promise.race([woken, changes.wait(interval, signal ? AbortSignal.any([signal, stop.signal]) : stop.signal)])
          stop.abort()
          waiters.delete(wake)
          interval = Math.min(storage.onChange ? 1000 : 200, interval * 1.5)
        }
      } finally {
        changes.close()
      }
    },
    active: () => [...active.keys()],
    async work(w = {}) {
      if (!queue) throw new FoundryError('UNSUPPORTED', 'work() needs a job queue: openEngine({ queue }) (a project on PostgreSQL)')
      if (working) throw new FoundryError('CONFLICT', 'this engine is working already')
      const names = w.workflows ?? [...definitions.runnables.keys()]
      for (const name of names) findRunnable(name)
      working = w
      await sweep()
      await queue.work(names, { concurrency: w.concurrency ?? 4 }, runJob)
      const every = w.sweepMs ?? 15_000
      sweeper = setInterval(() => void sweep().catch(() => {}), every)
      sweeper.unref()
    },
    async close() {
      if (closed) return
      if (queue && working) {
        // Stop taking jobs; runs in hand get `drainMs` to finish, then their jobs go back to the queue (retried or failed per policy).
        clearInterval(sweeper)
        await queue.stop(working.drainMs ?? 10_000)
      }
      closed = true
      stop.abort()
      for (const timer of wakes.values()) clearTimeout(timer)
      wakes.clear()
      // A worker's runs still in hand go back to the queue (their jobs are retried or failed); others are cancelled.
      for (const run of active.values()) run.controller.abort(queue ? claimLostReason() : shutdownReason())
      await Promise.all([...active.values()].map((run) => run.done))
      await lease?.release()
    },
  }
}

