// A workflow body that ignores its cancellation, through `marbles mcp`: `cancel_requested` while it
// has its grace period, then its worker is stopped, the run is `cancelled` (the abandonment journaled),
// and the server answers throughout.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readJournal } from '../src/journal/follow.js'
import { initialized, startRawServer, toolCall } from '@foundry/server/testing'
import { alive, BIN, connectMcp, HERE, newProject, open, until } from './helpers.js'

const BOUNDS = join(HERE, 'fixtures', 'bounds')

test('a body spinning in while(true) and one awaiting forever are stopped after the grace period; their runs end cancelled; the server keeps answering', async () => {
  const root = await newProject('fs')
  const file = join(mkdtempSync(join(tmpdir(), 'marbles-spin-')), 'count')
  const mcp = await connectMcp(['--root', root, '--source', BOUNDS])
  const project = await open(root)
  const started = (runId: string) =>
    until(
      async () => (await readJournal(project.storage, runId)).some((r) => r.type === 'step' && r.phase === 'end'),
      30_000,
      `${runId} to start`,
    )
  try {
    const spin = (await mcp.call('dispatch_workflow', { name: 'spins', input: { file } })).data.runId as string
    const hang = (await mcp.call('dispatch_workflow', { name: 'hangs' })).data.runId as string
    await started(spin)
    await started(hang)
    await until(() => existsSync(file), 30_000, 'the spinning body to count')
    assert.is(
      (await mcp.call('get_run', { runId: spin })).data.status,
      'running',
      'the server answers while a body spins',
    )

    const cancels = [mcp.call('cancel_run', { runId: spin }), mcp.call('cancel_run', { runId: hang })]
    const during = await until(
      async () => {
        const r = await mcp.call('get_run', { runId: hang })
        return r.data.cancelRequested ? r : undefined
      },
      10_000,
      'cancel_requested',
    )
    assert.is(during.data.status, 'running', 'reported running (cancelRequested) while it has its grace period')
    for (const done of await Promise.all(cancels)) {
      assert.is(done.data.status, 'cancelled')
      assert.match(done.data.reason, /abandoned: the body ignored it and its worker was stopped/)
    }
    const counted = readFileSync(file, 'utf8')
    assert.is((await mcp.call('list_config')).error, undefined, 'the server still answers')
    const again = await mcp.call('dispatch_workflow', { name: 'echo', input: { a: 1 } })
    assert.is((await mcp.settle(again.data.runId)).data.status, 'completed', 'and runs new work')
    assert.is(readFileSync(file, 'utf8'), counted, 'the spinning body stopped counting')

    for (const runId of [spin, hang]) {
      const records = await readJournal(project.storage, runId)
      const statuses = records.filter((r) => r.type === 'status').map((r) => (r as { status: string }).status)
      assert.equal(statuses, ['queued', 'running', 'cancel_requested', 'cancelled'])
      assert.ok(
        records.some(
          (r) =>
            r.type === 'log' &&
            r.level === 'warn' &&
            /ignored its cancellation for \d+ ms: its worker was stopped/.test(r.message),
        ),
        'the abandonment is journaled',
      )
    }
  } finally {
    await project.close()
    await mcp.client.close()
  }
})

test('stdin closed mid-call: a cancel_run waiting out a 61 s grace period, and the server still exits within 30 s', async () => {
  const root = await newProject('fs')
  const server = await initialized(
    startRawServer(BIN, ['--root', root, '--source', BOUNDS, 'mcp'], {
      cwd: HERE,
      env: { MARBLES_KILL_GRACE_MS: '60000' },
    }),
  )
  const project = await open(root)
  try {
    await server.send(toolCall(1, 'dispatch_workflow', { name: 'hangs' }))
    const runId = JSON.parse((await server.answer(1)).result.content[0].text).runId as string
    await until(
      async () => (await readJournal(project.storage, runId)).some((r) => r.type === 'step' && r.phase === 'end'),
      30_000,
      'the run to start',
    )
    await server.send(toolCall(2, 'cancel_run', { runId }))
    await until(
      async () =>
        (await readJournal(project.storage, runId)).some((r) => r.type === 'status' && r.status === 'cancel_requested'),
      10_000,
      'the cancellation to be requested',
    )
    server.child.stdin.end()
    const pid = server.child.pid!
    await until(() => !alive(pid), 30_000, 'marbles mcp to exit after its stdin closed')
    assert.match(server.stderr(), /stdin ended; 1 request\(s\) still unanswered after 5000 ms: closing/)
  } finally {
    await project.close()
    server.child.kill('SIGKILL')
  }
})

test.run()
