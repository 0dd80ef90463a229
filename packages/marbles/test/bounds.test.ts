// Bounds through the built bin: a dispatch's input (size and depth) and a run's journal (records and
// bytes), and get_run and watch on a journal at its bound.
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readJournal } from '../src/journal/follow.js'
import { connectMcp, HERE, marbles, newProject, open } from './helpers.js'

const BOUNDS = join(HERE, 'fixtures', 'bounds')
const deep = (levels: number) => {
  let value: unknown = 'bottom'
  for (let i = 0; i < levels; i++) value = { down: value }
  return value
}
/** Built as text: JSON.stringify itself overflows the stack on it. */
const deepText = (levels: number) => `${'{"down":'.repeat(levels)}"bottom"${'}'.repeat(levels)}`

test('dispatch refuses an input over 1 MiB or nested past 32 levels, naming input and the bound; no run is created', async () => {
  const root = await newProject('fs')
  const mcp = await connectMcp(['--root', root, '--source', BOUNDS])
  try {
    const big = await mcp.call('dispatch_workflow', { name: 'echo', input: { blob: 'x'.repeat(9 * 1024 * 1024) } })
    assert.match(
      big.error ?? '',
      /^dispatch_workflow failed: input is over 1 MiB as JSON: pass large data as a file path or an artifact name instead/,
    )
    const nested = await mcp.call('dispatch_workflow', { name: 'echo', input: deep(1000) as Record<string, unknown> })
    assert.match(nested.error ?? '', /nested more than/)
    const fine = await mcp.call('dispatch_workflow', { name: 'echo', input: { blob: 'x'.repeat(1000) } })
    assert.is(fine.error, undefined)
    assert.is((await mcp.settle(fine.data.runId)).data.status, 'completed', 'the server answers after the refusals')
  } finally {
    await mcp.client.close()
  }
  const cli = marbles(['--root', root, '--source', BOUNDS, 'run', 'echo', '--input', deepText(5000)])
  assert.is(cli.code, 1)
  assert.is(cli.stderr.trim(), 'error: input is nested more than 32 levels deep: flatten it (no run was created)')
  const project = await open(root)
  try {
    assert.is((await project.storage.keys('marbles.runs')).length, 1, 'only the accepted run exists')
  } finally {
    await project.close()
  }
})

test('a run journals at most its bound: later log lines are dropped (one warn line says so), a step past it fails the run; get_run and watch read it', async () => {
  const root = await newProject('fs')
  const mcp = await connectMcp(['--root', root, '--source', BOUNDS, '--journal-lines', '300'])
  let chatty: string, stepper: string
  try {
    chatty = (await mcp.call('dispatch_workflow', { name: 'chatty', input: { lines: 5000 } })).data.runId
    const done = await mcp.settle(chatty)
    assert.is(done.data.status, 'completed', 'log lines past the bound do not fail the run')
    assert.equal(done.data.output, { lines: 5000 })
    stepper = (await mcp.call('dispatch_workflow', { name: 'chatty', input: { lines: 0, steps: 1000 } })).data.runId
    const failed = await mcp.settle(stepper)
    assert.is(failed.data.status, 'failed')
    assert.match(
      failed.data.error.message,
      /reached its bound \(300 records or 16777216 bytes\): no more steps or timers can be journaled/,
    )
    const bad = await connectMcp(['--root', root, '--source', BOUNDS, '--journal-lines', 'lots']).catch(
      (error: Error) => error,
    )
    assert.ok(bad instanceof Error, 'a bad --journal-lines stops the server')
  } finally {
    await mcp.client.close()
  }
  const project = await open(root)
  try {
    const records = await readJournal(project.storage, chatty)
    assert.ok(records.length <= 303, `${records.length} records: the bound, then the note, the result and the status`)
    const notes = records.filter(
      (r) => r.type === 'log' && r.level === 'warn' && r.message.includes('reached its bound'),
    )
    assert.is(notes.length, 1, 'the bound is journaled once')
    assert.is(records[records.length - 1]!.type, 'status')
    assert.ok((await readJournal(project.storage, stepper)).length <= 302)
  } finally {
    await project.close()
  }
  const watched = marbles(['--root', root, 'watch', chatty])
  assert.is(watched.code, 0)
  assert.match(watched.stdout, /reached its bound/)
  assert.match(watched.stdout, /complete\n$/)
})

test('the default bound: 10 000 records', async () => {
  const root = await newProject('sqlite')
  const run = marbles(['--root', root, '--source', BOUNDS, 'run', 'chatty', '--input', '{"lines":12000}'])
  assert.is(run.code, 0, run.stderr)
  const project = await open(root)
  try {
    const [runId] = await project.storage.keys('marbles.runs')
    const records = await readJournal(project.storage, runId!)
    assert.ok(records.length > 10_000 && records.length <= 10_003, `${records.length} records`)
  } finally {
    await project.close()
  }
})

test.run()
