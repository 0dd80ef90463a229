import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel, memoryStorage, type Storage } from '@foundry/kernel'
import { defineWorkspace } from '../src/define/registry.js'
import { workflow } from '../src/define/workflow.js'
import { openEngine, type Engine } from '../src/engine/engine.js'
import { readJournal } from '../src/journal/follow.js'
import { isTerminal, TRANSITIONS, type JournalRecord, type RunStatus } from '../src/journal/records.js'
import { RUN_ID_PATTERN } from '../src/engine/ids.js'
import { basicDefinitions, newProject, open, STORAGES, until } from './helpers.js'

/** Every (from → to) pair the tests below journal: at the end, every transition of the table has been seen. */
const seen = new Set<string>()
async function statuses(storage: Storage, runId: string): Promise<RunStatus[]> {
  const list = (await readJournal(storage, runId))
    .filter((r): r is Extract<JournalRecord, { type: 'status' }> => r.type === 'status')
    .map((r) => r.status)
  list.forEach((to, i) => i && seen.add(`${list[i - 1]}→${to}`))
  return list
}

for (const kind of ['memory', ...STORAGES] as const) {
  const setup = async () => {
    if (kind === 'memory') {
      const storage = memoryStorage()
      return { storage, kernel: createKernel({ storage }), close: async () => {} }
    }
    const project = await open(await newProject(kind))
    return { storage: project.storage, kernel: project.kernel, close: () => project.close() }
  }
  const withEngine = (name: string, fn: (e: Engine, storage: Storage) => Promise<void>) =>
    test(`${kind}: ${name}`, async () => {
      const { storage, kernel, close } = await setup()
      const engine = await openEngine({ storage, kernel, definitions: await basicDefinitions(), graceMs: 300 })
      try {
        assert.ok(engine.owner)
        await fn(engine, storage)
      } finally {
        await engine.close()
        await close()
      }
    })

  withEngine(
    'queued → running → complete; the journal is ordered, gapless, and holds the output',
    async (engine, storage) => {
      const { runId, status } = await engine.dispatch('hello', { who: 'ada' })
      assert.match(runId, RUN_ID_PATTERN)
      assert.is(status, 'queued')
      const info = await engine.settled(runId)
      assert.is(info?.status, 'complete')
      assert.equal(info?.output, { greeting: 'hello ada', n: 3 })
      const records = await readJournal(storage, runId)
      assert.equal(
        records.map((r) => r.seq),
        records.map((_, i) => i),
      )
      assert.equal(await statuses(storage, runId), ['queued', 'running', 'complete'])
      assert.equal(
        records.map((r) => r.type),
        ['status', 'status', 'log', 'step', 'step', 'result', 'status'],
      )
      assert.is((await engine.runs())[0]?.status, 'complete')
    },
  )

  withEngine('running → failed, with the error', async (engine, storage) => {
    const { runId } = await engine.dispatch('fails')
    const info = await engine.settled(runId)
    assert.is(info?.status, 'failed')
    assert.equal(info?.error, { name: 'TypeError', message: 'bad thing happened' })
    assert.equal(await statuses(storage, runId), ['queued', 'running', 'failed'])
  })

  withEngine('retries journal every attempt; exhaustion fails the run with the last error', async (engine, storage) => {
    const ok = await engine.settled((await engine.dispatch('retries')).runId)
    assert.is(ok?.status, 'complete')
    assert.is(ok?.output, 3)
    const steps = (await readJournal(storage, ok!.id)).filter((r) => r.type === 'step')
    assert.equal(
      steps.map((s) => (s.type === 'step' ? `${s.phase}${s.attempt}` : '')),
      ['start1', 'error1', 'start2', 'error2', 'start3', 'end3'],
    )
    assert.equal(
      steps.map((s) => (s.type === 'step' ? s.retryInMs : 0)),
      [undefined, 5, undefined, 10, undefined, undefined],
    )

    const bad = await engine.settled((await engine.dispatch('exhausts')).runId)
    assert.is(bad?.status, 'failed')
    assert.equal(bad?.error, { name: 'Error', message: 'always broken' })
    const errors = (await readJournal(storage, bad!.id)).filter((r) => r.type === 'step' && r.phase === 'error')
    assert.is(errors.length, 2)
    assert.ok(errors[1]!.type === 'step' && errors[1]!.retryInMs === undefined, 'no retry after the last attempt')
  })

  withEngine('timeoutMs: running → failed with a TimeoutError', async (engine, storage) => {
    const info = await engine.settled((await engine.dispatch('times-out')).runId)
    assert.is(info?.status, 'failed')
    assert.is(info?.reason, 'timeout')
    assert.is(info?.error?.name, 'TimeoutError')
    assert.match(info!.error!.message, /timed out after 100 ms/)
    assert.equal(await statuses(storage, info!.id), ['queued', 'running', 'failed'])
  })

  withEngine(
    'cancel in the middle of a step: running → cancel_requested → cancelled; the step sees its signal',
    async (engine, storage) => {
      const { runId } = await engine.dispatch('slow', { ms: 30_000 })
      await until(
        async () => (await readJournal(storage, runId)).some((r) => r.type === 'step' && r.phase === 'start'),
        5000,
        'the step to start',
      )
      const info = await engine.cancel(runId)
      assert.is(info?.status, 'cancelled')
      assert.equal(await statuses(storage, runId), ['queued', 'running', 'cancel_requested', 'cancelled'])
    },
  )

  withEngine(
    'a timer suspends the run and resumes it from its journal: finished steps do not run again',
    async (engine, storage) => {
      const { runId } = await engine.dispatch('naps', { ms: 150 })
      const suspended = await engine.settled(runId)
      assert.is(suspended?.status, 'suspended')
      assert.ok(suspended!.wakeAt! > Date.now() - 1000)
      const done = await until(
        async () => {
          const info = await engine.get(runId)
          return info?.status === 'complete' && info
        },
        5000,
        'the run to resume',
      )
      assert.equal(done.output, { before: 'done before', after: 'done after' })
      assert.equal(await statuses(storage, runId), ['queued', 'running', 'suspended', 'running', 'complete'])
      const ends = (await readJournal(storage, runId))
        .filter((r) => r.type === 'step' && r.phase === 'end')
        .map((r) => (r.type === 'step' ? r.step : ''))
      assert.equal(ends, ['before', 'after'], 'before ran once')
    },
  )

  withEngine('suspended → cancel_requested → cancelled', async (engine, storage) => {
    const { runId } = await engine.dispatch('naps', { ms: 60_000 })
    assert.is((await engine.settled(runId))?.status, 'suspended')
    assert.is((await engine.cancel(runId))?.status, 'cancelled')
    assert.equal(await statuses(storage, runId), ['queued', 'running', 'suspended', 'cancel_requested', 'cancelled'])
  })

  withEngine('a declared step dispatched alone; input validated; unknown names refused', async (engine) => {
    const info = await engine.settled((await engine.dispatch('double', { n: 21 })).runId)
    assert.is(info?.output, 42)
    try {
      await engine.dispatch('double', { n: 'x' })
      assert.unreachable()
    } catch (error) {
      assert.match((error as Error).message, /input of step double/)
    }
    try {
      await engine.dispatch('nope')
      assert.unreachable()
    } catch (error) {
      assert.match((error as Error).message, /No workflow or step named "nope"; known: big, double/)
    }
    assert.is(await engine.get('run-00000000000000000000000000'), undefined)
  })

  withEngine(
    'a large output goes to an artifact under the run id; the journal holds its path',
    async (engine, storage) => {
      const info = await engine.settled((await engine.dispatch('big')).runId)
      assert.is(info?.status, 'complete')
      assert.ok(info?.artifact?.includes(info.id), info?.artifact)
      const result = (await readJournal(storage, info!.id)).find((r) => r.type === 'result')
      assert.ok(result?.type === 'result' && result.output === undefined && result.artifact === info!.artifact)
      const stored = await storage.get('artifacts', `${info!.id}/output`)
      assert.is((stored?.data.value as { text: string }).text.length, 40_000)
    },
  )
}

test('queued → cancel_requested → cancelled: a run dispatched while no engine owns the state', async () => {
  const storage = memoryStorage()
  const kernel = createKernel({ storage })
  const reader = await openEngine({ storage, kernel, definitions: await basicDefinitions(), role: 'reader' })
  assert.not.ok(reader.owner)
  const { runId } = await reader.dispatch('hello', { who: 'x' })
  assert.is((await reader.get(runId))?.status, 'queued')
  assert.is((await reader.cancel(runId))?.status, 'cancelled')
  assert.equal(await statuses(storage, runId), ['queued', 'cancel_requested', 'cancelled'])
  await reader.close()
})

test('one owner per state: a second engine is refused (role owner) or joins as a reader (auto), and the owner executes what the reader dispatches', async () => {
  const storage = memoryStorage()
  const kernel = createKernel({ storage })
  const definitions = await basicDefinitions()
  const owner = await openEngine({ storage, kernel, definitions })
  try {
    await openEngine({ storage, kernel, definitions, role: 'owner' })
    assert.unreachable()
  } catch (error) {
    assert.match((error as Error).message, /Another engine owns this state \(pid \d+/)
  }
  const reader = await openEngine({ storage, kernel, definitions })
  assert.not.ok(reader.owner)
  assert.is(reader.holder?.pid, process.pid)
  const { runId } = await reader.dispatch('hello', { who: 'via control' })
  assert.is((await reader.settled(runId))?.status, 'complete')
  await reader.close()
  await owner.close()
  const next = await openEngine({ storage, kernel, definitions, role: 'owner' })
  assert.ok(next.owner, 'the lease is free once the owner closes')
  await next.close()
})

test('a run whose body ends while its cancellation is being journaled ends complete (the completion is accepted), never stuck in cancel_requested', async () => {
  const project = await open(await newProject('fs'))
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  // The body returns as soon as the cancel_requested record is on its way to the journal.
  const storage: Storage = {
    ...project.storage,
    appendLog(log, entries) {
      const appended = project.storage.appendLog(log, entries)
      if (entries.some((entry) => entry.includes('"status":"cancel_requested"'))) release()
      return appended
    },
  }
  const definitions = defineWorkspace(workflow({ name: 'gated', run: async () => (await gate, 'done') }))
  const engine = await openEngine({ storage, kernel: project.kernel, definitions })
  try {
    const { runId } = await engine.dispatch('gated')
    await until(async () => (await engine.get(runId))?.status === 'running', 10_000, 'the run to start')
    const info = await engine.cancel(runId)
    assert.ok(info && isTerminal(info.status), `cancel returned the run ${info?.status}`)
    const settled = await engine.settled(runId, AbortSignal.timeout(10_000))
    assert.is(settled?.status, 'complete')
    assert.is(settled?.output, 'done')
    assert.equal(await statuses(project.storage, runId), ['queued', 'running', 'cancel_requested', 'complete'])
  } finally {
    await engine.close()
    await project.close()
  }
})

test('a body in this process that ignores its cancellation: cancel_requested for the grace period, then cancelled as abandoned (still running), the abandonment journaled', async () => {
  const storage = memoryStorage()
  const definitions = defineWorkspace(workflow({ name: 'deaf', run: () => new Promise(() => {}) }))
  const engine = await openEngine({ storage, kernel: createKernel({ storage }), definitions, graceMs: 200 })
  const alive = setInterval(() => {}, 1000) // the grace timer is unref'd; a server's stdin keeps its process alive
  try {
    const { runId } = await engine.dispatch('deaf')
    await until(async () => (await engine.get(runId))?.status === 'running', 10_000, 'the run to start')
    const cancelling = engine.cancel(runId)
    await until(
      async () => (await engine.get(runId))?.status === 'cancel_requested',
      10_000,
      'cancel_requested while it has its grace period',
    )
    const info = await cancelling
    assert.is(info?.status, 'cancelled')
    assert.match(info?.reason ?? '', /abandoned: the body ignored it and still runs/)
    const notes = (await readJournal(storage, runId)).filter((r) => r.type === 'log' && r.level === 'warn')
    assert.match(
      (notes[0] as { message: string }).message,
      /ignored its cancellation for 200 ms and cannot be stopped in this process/,
    )
  } finally {
    clearInterval(alive)
    await engine.close()
  }
})

test('the journal saw every transition of the state machine', () => {
  const all = Object.entries(TRANSITIONS).flatMap(([from, tos]) => tos.map((to) => `${from}→${to}`))
  const missing = all.filter((t) => !seen.has(t))
  assert.equal(missing, [], `not exercised: ${missing.join(', ')}`)
})

test.run()
