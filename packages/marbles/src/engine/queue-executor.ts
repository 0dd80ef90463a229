import { FoundryError } from '@foundry/kernel'
import type { RunState } from '../journal/fold.js'
import { isTerminal } from '../journal/records.js'
import type { JobPolicy, RunJob, RunQueue } from '../queue/queue.js'
import type { EngineCore } from './core.js'
import { claimLostReason } from './errors.js'
import type { Executor, WorkerOptions } from './executor.js'
import { JOBS, RUNS, type JobEntry } from './run-record.js'
import { admit, hasLimits, release } from './admission.js'

/** What the worker's functions share. */
interface Worker {
  core: EngineCore
  queue: RunQueue
  graceMs: number
}

/**
 * An executor on a job queue (pg-boss on PostgreSQL): `dispatch` enqueues the run's job, and engines
 * that `start()` (workers, in any process on any machine) execute the runs whose jobs they take. No
 * lease: the queue says who executes each run, and the run's journal stays the truth.
 */
export function queueExecutor(core: EngineCore, queue: RunQueue, graceMs: number): Executor {
  const w: Worker = { core, queue, graceMs }
  const { storage } = core
  let working: WorkerOptions | undefined
  let sweeper: ReturnType<typeof setInterval> | undefined
  return {
    dispatch: (runId, name) => enqueueRun(w, runId, name, 'start'),
    wake: (runId, name, key) => enqueueRun(w, runId, name, key),
    async cancel(runId) {
      // A worker holding the job sees its signal abort and settles the run; a run no worker holds yet is settled here.
      const entry = await storage.get(JOBS, runId)
      if (entry) await queue.cancel(entry)
      await storage.exclusive(async () => {
        const state = await core.stateOf(runId)
        if (state.status === 'queued' || state.status === 'suspended') await core.cancelIdle(runId, state)
      })
    },
    async start(options = {}) {
      if (working) throw new FoundryError('CONFLICT', 'this engine is working already')
      const names = options.workflows ?? [...core.definitions.runnables.keys()]
      for (const name of names) core.findRunnable(name)
      working = options
      await sweep(w)
      await queue.work(names, { concurrency: options.concurrency ?? 4 }, (job) => runJob(w, job))
      sweeper = setInterval(() => void sweep(w).catch(() => {}), options.sweepMs ?? 15_000)
      sweeper.unref()
    },
    async close() {
      if (working) {
        // Stop taking jobs; runs in hand get `drainMs` to finish, then their jobs go back to the queue (retried or failed per policy).
        clearInterval(sweeper)
        await queue.stop(working.drainMs ?? 10_000)
      }
      // Runs still in hand go back to the queue (their jobs are retried or failed): this process stops writing them.
      await core.shutdown(claimLostReason())
    },
  }
}

/** A workflow's job policy: a resumable one is retried (its next attempt resumes it in a linked run), and `timeoutMs` sets the hard timeout. */
function policyOf(w: Worker, name: string, startAfter?: number): JobPolicy {
  const timeoutMs = w.core.definitions.runnables.get(name)?.timeoutMs
  return {
    retryLimit: w.core.resumable(name) ? 2 : 0,
    // The engine's own timer fails the run at `timeoutMs`; the queue expires the job (a frozen or stuck worker) a little later.
    expireInSeconds: timeoutMs ? Math.min(86_400, Math.ceil((timeoutMs + w.graceMs) / 1000) + 2) : 86_400,
    ...(startAfter !== undefined && { startAfter: new Date(startAfter) }),
  }
}

/** Record which job carries the run (a canceller reads it), then create the job: idempotent, its id derives from the run and `key`. */
async function enqueueRun(
  w: Worker,
  runId: string,
  name: string,
  key: string,
  carrier = runId,
  startAfter?: number,
  requeues?: number,
): Promise<void> {
  const entry: JobEntry = { ...w.queue.jobRef(name, carrier, key), runId: carrier, ...(requeues && { requeues }) }
  await w.core.storage.put(JOBS, runId, entry)
  await w.queue.enqueue(entry, policyOf(w, name, startAfter))
}

/** A job in this worker's hands: settle what the previous attempt left, then execute the run at the head of its resume chain. */
async function runJob(w: Worker, job: RunJob): Promise<void> {
  let runId = job.runId
  let state = await w.core.stateOf(runId)
  while (state.status === 'failed' && state.resumedBy) {
    runId = state.resumedBy
    state = await w.core.stateOf(runId)
  }
  if (state.status === undefined || isTerminal(state.status)) return
  if (job.dead || state.status === 'running' || state.status === 'cancel_requested') {
    const linked = await settleAbandoned(w, runId, state, job)
    if (!linked) return
    runId = linked
  }
  // Executed under its job; a run that suspends gets a job that wakes it.
  const run = (id: string) =>
    w.core.execute(id, {
      claim: job,
      suspended: (sid, name, key, until) =>
        until === undefined ? undefined : enqueueRun(w, sid, name, key, sid, until),
    })
  if (!hasLimits(w.core.definitions)) return run(runId)
  // A workflow with concurrency or rate limits: admitted across workers first, else a new job asks again later.
  const current = await w.core.stateOf(runId)
  const def = w.core.definitions.runnables.get(current.name ?? '')
  const verdict = await admit(w.core.storage, def, runId, current)
  if (!verdict.admitted) return enqueueRun(w, runId, current.name!, `held-${Date.now()}`, runId, verdict.retryAt)
  try {
    await run(runId)
  } finally {
    await release(w.core.storage, def, runId, current).catch(() => {})
  }
}

/**
 * A run whose job's last attempt ended without settling it (its worker was killed or froze, or the
 * job expired), or whose job failed for good (`dead`). A running run becomes `failed` (`timeout` when
 * the job expired, else `interrupted`); a resumable one, on a retry, `failed` with a linked run that
 * resumes it, returned for this attempt to execute. A run that never ran is cancelled.
 */
async function settleAbandoned(w: Worker, runId: string, state: RunState, job: RunJob): Promise<string | undefined> {
  const { core } = w
  const writer = core.writer(runId, state)
  const why = job.previous ?? 'its worker stopped beating'
  if (state.status === 'cancel_requested')
    return void (await core.transition(runId, writer, state, 'cancelled', { reason: 'interrupted' }))
  if (state.status === 'queued' || state.status === 'suspended') {
    // It never ran under this job (its worker died between taking the job and starting the run): a new job, three times at most.
    const entry = await core.storage.get(JOBS, runId)
    const requeues = (entry?.requeues ?? 0) + 1
    if (requeues <= 3)
      return void (await enqueueRun(
        w,
        runId,
        state.name!,
        `requeue-${requeues}`,
        runId,
        state.status === 'suspended' ? state.wakeAt : undefined,
        requeues,
      ))
  }
  if (state.status !== 'running') {
    await core.transition(runId, writer, state, 'cancel_requested', { reason: `its job failed: ${why}` })
    return void (await core.transition(runId, writer, state, 'cancelled', { reason: `its job failed: ${why}` }))
  }
  const timedOut = /timed out|exceeded/i.test(why)
  const error = timedOut
    ? { name: 'TimeoutError', message: `the job expired (${why})` }
    : { name: 'Interrupted', message: `the worker running it stopped before it settled (${why})` }
  if (!job.dead && !timedOut && core.resumable(state.name)) {
    const linked = await core.create(state.name!, state.input, runId)
    const carrier = await core.storage.get(JOBS, runId)
    if (carrier) await core.storage.put(JOBS, linked, carrier)
    await core.transition(runId, writer, state, 'failed', { reason: 'interrupted', error, resumedBy: linked })
    return linked
  }
  await core.transition(runId, writer, state, 'failed', { reason: timedOut ? 'timeout' : 'interrupted', error })
  return undefined
}

/** Runs left queued or suspended whose job was never created (the dispatcher died in between): create it (idempotent). */
async function sweep(w: Worker): Promise<void> {
  const { storage } = w.core
  for (const record of await storage.list(RUNS)) {
    if (record.status !== 'queued' && record.status !== 'suspended') continue
    const entry = await storage.get(JOBS, record.id)
    if (entry && record.status === 'queued' && entry.runId !== record.id) continue // a linked run: its carrier job runs it
    const state = await w.core.stateOf(record.id)
    if (state.status !== record.status) continue
    if (entry)
      await w.queue.enqueue(entry, policyOf(w, record.name, state.status === 'suspended' ? state.wakeAt : undefined))
    else await enqueueRun(w, record.id, record.name, 'start')
  }
}
