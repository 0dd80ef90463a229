// Several engines on one project: each `marbles mcp` executes and addresses its own launches, beside
// the others and beside `marbles serve`; nothing is lost or run twice.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readJournal } from '../src/journal/follow.js'
import { AGENTS, connectMcp, kill, marbles, newProject, open, start, STORAGES, until } from './helpers.js'

type Mcp = Awaited<ReturnType<typeof connectMcp>>

for (const kind of STORAGES) {
  test(`${kind}: two marbles mcp on one project, then a third beside marbles serve: each dispatches, sees its runs complete, and only its own`, async () => {
    const root = await newProject(kind)
    const hosts: Mcp[] = []
    const serve = { current: undefined as ReturnType<typeof start> | undefined }
    const project = await open(root)
    try {
      hosts.push(
        await connectMcp(['--root', root, '--source', AGENTS]),
        await connectMcp(['--root', root, '--source', AGENTS]),
      )
      const launched = new Map<Mcp, string[]>()
      const dispatch = async (mcp: Mcp, tool: string, args: Record<string, unknown>) => {
        const ack = await mcp.call(tool, args)
        assert.is(ack.error, undefined, ack.error)
        launched.set(mcp, [...(launched.get(mcp) ?? []), ack.data.runId])
        return ack.data.runId as string
      }
      // Both at once: workflows and agents.
      const [a, b] = hosts as [Mcp, Mcp]
      const runs = await Promise.all([
        dispatch(a, 'dispatch_workflow', { name: 'hello', input: { who: 'a' } }),
        dispatch(b, 'dispatch_workflow', { name: 'hello', input: { who: 'b' } }),
        dispatch(a, 'dispatch_agent', { agent: 'reviewer', prompt: 'Review a.' }),
        dispatch(b, 'dispatch_agent', { agent: 'reviewer', prompt: 'Review b.' }),
      ])
      assert.is((await a.settle(runs[0]!)).data.output.greeting, 'hello a')
      assert.is((await b.settle(runs[1]!)).data.output.greeting, 'hello b')
      assert.is((await a.settle(runs[2]!)).data.status, 'completed')
      assert.is((await b.settle(runs[3]!)).data.status, 'completed')
      assert.match(
        (await a.call('get_run', { runId: runs[1] })).error ?? '',
        /is not a run this server launched/,
        'a addresses only its own launches',
      )
      assert.match((await b.call('cancel_run', { runId: runs[0] })).error ?? '', /is not a run this server launched/)

      // Cancellation: through the server that launched the run, and through marbles cancel from another process.
      const waitA = await dispatch(a, 'dispatch_workflow', { name: 'waits' })
      const waitB = await dispatch(b, 'dispatch_workflow', { name: 'waits' })
      await until(
        async () =>
          (await a.call('get_run', { runId: waitA })).data.status === 'running' &&
          (await b.call('get_run', { runId: waitB })).data.status === 'running',
        15_000,
        'both to run',
      )
      const cancelled = marbles(['--root', root, 'cancel', waitA])
      assert.is(cancelled.code, 0, cancelled.stderr)
      assert.match(cancelled.stdout, new RegExp(`run ${waitA} cancelled`))
      assert.is((await b.call('get_run', { runId: waitB })).data.status, 'running', "the other server's run goes on")
      assert.is((await b.call('cancel_run', { runId: waitB })).data.status, 'cancelled')

      // marbles serve owns the state; a third marbles mcp starts beside it and executes its own launch.
      serve.current = start(['--root', root, '--source', AGENTS, 'serve'])
      await until(() => serve.current!.output().stderr.includes('marbles serve:'), 30_000, 'serve to start')
      const c = await connectMcp(['--root', root, '--source', AGENTS])
      hosts.push(c)
      const third = await dispatch(c, 'dispatch_workflow', { name: 'hello', input: { who: 'c' } })
      assert.is((await c.settle(third)).data.output.greeting, 'hello c')
      const served = marbles(['--root', root, '--source', AGENTS, 'run', 'hello', '--input', '{"who":"d"}'])
      assert.is(served.code, 0, served.stderr)
      assert.match(served.stderr, /is executed by the engine owning/, 'marbles run hands its run to serve')

      // Each run started once, and settled once.
      for (const runId of [...launched.values()].flat()) {
        const statuses = (await readJournal(project.storage, runId)).flatMap((r) =>
          r.type === 'status' ? [r.status] : [],
        )
        assert.is(statuses.filter((s) => s === 'running').length, 1, `${runId}: ${statuses.join(' → ')}`)
        assert.ok(['complete', 'cancelled'].includes(statuses.at(-1)!), `${runId}: ${statuses.join(' → ')}`)
      }
      assert.equal(
        await project.storage.keys('marbles.run-leases'),
        [],
        'every run lease released once its run settled',
      )
    } finally {
      for (const mcp of hosts) await mcp.client.close().catch(() => {})
      if (serve.current) kill(serve.current.child, 'SIGKILL')
      await project.close()
    }
  })
}

test.run()
