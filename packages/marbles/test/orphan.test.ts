// A watcher of a run whose engine was killed: it notices the dead run lease and exits 1 with one line saying so.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readJournal } from '../src/journal/follow.js'
import { AGENTS, BASIC, connectMcp, kill, marbles, newProject, open, start, STORAGES, until } from './helpers.js'

/** The watcher's exit, or a failure once `ms` passed (the watcher checks the executor every second). */
const exitWithin = <T>(exited: Promise<T>, ms: number) =>
  Promise.race([
    exited,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`the watcher did not exit within ${ms} ms`)), ms).unref(),
    ),
  ])

for (const kind of STORAGES) {
  test(`${kind}: SIGKILL of the process executing a run (marbles run): its watcher exits 1 naming the dead engine; the next engine settles the run`, async () => {
    const root = await newProject(kind)
    const runner = start(['--root', root, '--source', BASIC, 'run', 'slow', '--input', '{"ms":60000}'])
    const project = await open(root)
    try {
      const runId = await until(() => /^(run-\w+)\n/.exec(runner.output().stdout)?.[1], 30_000, 'the run id')
      await until(
        async () =>
          (await readJournal(project.storage, runId)).some((r) => r.type === 'status' && r.status === 'running'),
        15_000,
        'the run to run',
      )
      const watcher = start(['--root', root, 'watch', runId], { cwd: '/' })
      await until(() => watcher.output().stdout.includes(' running'), 15_000, 'the watcher to see it running')
      runner.child.kill('SIGKILL')
      const watched = await exitWithin(watcher.exited, 10_000)
      assert.is(watched.code, 1, watched.stderr)
      assert.match(
        watched.stdout,
        new RegExp(`run ${runId} running: its engine \\(pid ${runner.child.pid} on [^)]+\\) died before it settled`),
      )

      const next = marbles(['--root', root, '--source', BASIC, 'run', 'double', '--input', '{"n":2}'])
      assert.is(next.code, 0, next.stderr)
      const after = marbles(['--root', root, 'watch', runId])
      assert.is(after.code, 1)
      assert.match(
        after.stdout,
        new RegExp(`run ${runId} failed: Interrupted`),
        'the next engine owning the state settled it',
      )
    } finally {
      kill(runner.child, 'SIGKILL')
      await project.close()
    }
  })

  test(`${kind}: SIGKILL of a marbles mcp with a workflow running: the watcher exits 1; the next marbles mcp settles the run`, async () => {
    const root = await newProject(kind)
    const mcp = await connectMcp(['--root', root, '--source', AGENTS])
    const runId = (await mcp.call('dispatch_workflow', { name: 'waits' })).data.runId as string
    await until(async () => (await mcp.call('get_run', { runId })).data.status === 'running', 15_000, 'the run to run')
    const watcher = start(['--root', root, 'watch', runId], { cwd: '/' })
    await until(() => watcher.output().stdout.includes(' running'), 15_000, 'the watcher to see it running')
    process.kill(mcp.pid()!, 'SIGKILL')
    const watched = await exitWithin(watcher.exited, 10_000)
    await mcp.client.close().catch(() => {})
    assert.is(watched.code, 1, watched.stderr)
    assert.match(watched.stdout, /died before it settled/)

    const next = await connectMcp(['--root', root, '--source', AGENTS])
    try {
      assert.is((await next.call('list_config')).error, undefined)
      const after = marbles(['--root', root, 'watch', runId])
      assert.is(after.code, 1)
      assert.match(
        after.stdout,
        new RegExp(`run ${runId} failed: Interrupted`),
        'a new marbles mcp settles what a dead one left',
      )
    } finally {
      await next.client.close()
    }
  })

  test(`${kind}: SIGKILL of a marbles mcp with a launch still queued (its turn not come): the next marbles mcp starts it`, async () => {
    const root = await newProject(kind)
    const file = join(root, '.foundry', 'config.json')
    const config = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}
    writeFileSync(file, JSON.stringify({ ...config, marbles: { concurrency: 1 } }))
    const mcp = await connectMcp(['--root', root, '--source', AGENTS])
    const busy = (await mcp.call('dispatch_workflow', { name: 'waits' })).data.runId as string
    await until(
      async () => (await mcp.call('get_run', { runId: busy })).data.status === 'running',
      15_000,
      'the run to run',
    )
    const queued = (await mcp.call('dispatch_workflow', { name: 'hello', input: { who: 'later' } })).data
      .runId as string
    assert.is((await mcp.call('get_run', { runId: queued })).data.status, 'queued', 'one at a time: it waits its turn')
    process.kill(mcp.pid()!, 'SIGKILL')
    await mcp.client.close().catch(() => {})

    const next = await connectMcp(['--root', root, '--source', AGENTS])
    try {
      assert.is((await next.call('list_config')).error, undefined)
      const after = marbles(['--root', root, 'watch', queued])
      assert.is(after.code, 0, after.stderr)
      assert.match(
        after.stdout,
        /result: \{"greeting":"hello later"\}\n/,
        'the next marbles mcp ran what a dead one left queued',
      )
      assert.match(marbles(['--root', root, 'watch', busy]).stdout, new RegExp(`run ${busy} failed: Interrupted`))
    } finally {
      await next.client.close()
    }
  })
}

test.run()
