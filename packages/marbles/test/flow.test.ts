// Waiting for a signal, re-running from the failed step, and workflow versions: through the built
// `marbles` bin, each command a new process, on the folder layout and SQLite.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readJournal } from '../src/journal/follow.js'
import type { RunRecord } from '../src/engine/run-record.js'
import { connectMcp, HERE, kill, marbles, newProject, open, start, STORAGES, until } from './helpers.js'

const FLOW = join(HERE, 'fixtures', 'flow')
const effects = (root: string) => readFileSync(join(root, 'effects.log'), 'utf8').trim().split('\n')
const runIdOf = (stdout: string) => stdout.trim().split('\n')[0]!
const runs = (root: string) => JSON.parse(marbles(['--root', root, 'runs', '--json']).stdout).runs as RunRecord[]
const runOf = (root: string, id: string) => runs(root).find((r) => r.id === id)

for (const kind of STORAGES) {
  test(`${kind}: ctx.waitFor suspends the run durably; a bad signal is refused and it keeps waiting; a new process signals and resumes it`, async () => {
    const root = await newProject(kind)
    const M = ['--root', root, '--source', FLOW]
    const started = marbles([...M, 'run', 'approval', '--input', JSON.stringify({ dir: root })])
    assert.is(started.code, 3, started.stderr)
    const id = runIdOf(started.stdout)
    assert.match(started.stdout, `run ${id} waiting for signal approve`)
    assert.match(
      marbles(['--root', root, 'runs']).stdout,
      new RegExp(`${id}  approval  waiting  .*\\(waiting for signal approve\\)`),
    )
    assert.equal(runOf(root, id)?.waitFor, { signal: 'approve', id: 'approve' })

    const bad = marbles([...M, 'signal', id, 'approve', '--data', '{"ok":"yes"}'])
    assert.is(bad.code, 1)
    assert.is(bad.stderr.trim(), 'error: Invalid data of signal approve: ok must be boolean')
    const wrong = marbles([...M, 'signal', id, 'deploy'])
    assert.is(wrong.stderr.trim(), `error: name: run ${id} waits for the signal "approve", not "deploy"`)
    assert.is(runOf(root, id)?.status, 'suspended', 'still waiting')

    const sent = marbles([...M, 'signal', id, 'approve', '--data', '{"ok":true,"by":"ada"}'])
    assert.is(sent.code, 0, sent.stderr)
    assert.match(sent.stdout, `signal approve sent to run ${id}`)
    assert.match(sent.stdout, 'result: {"ok":true,"by":"ada"}')
    assert.equal(effects(root), ['prepare', 'apply true'], 'the step before the wait ran once')
    const again = marbles([...M, 'signal', id, 'approve', '--data', '{"ok":true}'])
    assert.is(again.stderr.trim(), `error: run ${id} waits for no signal: it is complete`)

    const project = await open(root)
    try {
      const types = (await readJournal(project.storage, id)).map((r) =>
        r.type === 'status' ? r.status : r.type === 'step' ? `${r.step}:${r.phase}` : r.type,
      )
      assert.equal(types, [
        'queued',
        'running',
        'prepare:start',
        'prepare:end',
        'wait',
        'suspended',
        'signal',
        'running',
        'apply:start',
        'apply:end',
        'result',
        'complete',
      ])
    } finally {
      await project.close()
    }
  })

  test(`${kind}: marbles rerun replays the steps before the failed one from the old journal, in a new linked run`, async () => {
    const root = await newProject(kind)
    const M = ['--root', root, '--source', FLOW]
    const failed = marbles([...M, 'run', 'flaky', '--input', JSON.stringify({ dir: root })])
    assert.is(failed.code, 1)
    const old = runIdOf(failed.stdout)
    const unknown = marbles([...M, 'rerun', old, '--from', 'nope'])
    assert.is(unknown.stderr.trim(), `error: --from: run ${old} has no step "nope"; its steps: one, two`)
    writeFileSync(join(root, 'fixed'), '')
    const rerun = marbles([...M, 'rerun', old])
    assert.is(rerun.code, 0, rerun.stderr)
    const id = runIdOf(rerun.stdout)
    assert.ok(id !== old)
    assert.match(rerun.stdout, 'result: {"sum":6}')
    assert.equal(effects(root), ['one', 'two', 'two', 'three'], 'one is replayed, not run again')
    assert.is(runOf(root, id)?.rerunOf, old)
    assert.is(runOf(root, old)?.status, 'failed', 'the old run stays as it ended')
    const from = marbles([...M, 'rerun', old, '--from', 'one'])
    assert.is(from.code, 0, from.stderr)
    assert.equal(effects(root).slice(4), ['one', 'two', 'three'], '--from one runs every step')
  })

  test(`${kind}: a waiting run resumed under another version of its workflow is refused, not re-executed; a compatible version resumes it`, async () => {
    const root = await newProject(kind)
    const source = versionedSource()
    const M = ['--root', root, '--source', source.dir]
    source.write({ version: 1, step: 'charge' })
    const waiting = marbles([...M, 'run', 'order', '--input', JSON.stringify({ dir: root })])
    assert.is(waiting.code, 3, waiting.stderr)
    const id = runIdOf(waiting.stdout)
    assert.is(runOf(root, id)?.version, '1')
    const compatible = runIdOf(marbles([...M, 'run', 'order', '--input', JSON.stringify({ dir: root })]).stdout)

    source.write({ version: 2, step: 'bill' })
    const refused = marbles([...M, 'signal', id, 'go'])
    assert.is(refused.code, 1, refused.stderr)
    assert.match(
      refused.stdout,
      `run ${id} failed: VersionMismatch: the run started under version 1 of order; this workspace declares version 2`,
    )
    assert.is(runOf(root, id)?.reason, 'version mismatch')
    assert.equal(effects(root), ['charge', 'charge'], 'the renamed step never ran')

    source.write({ version: 3, step: 'charge', compatible: ['1'] })
    const resumed = marbles([...M, 'signal', compatible, 'go'])
    assert.is(resumed.code, 0, resumed.stderr)
    assert.equal(effects(root), ['charge', 'charge', 'ship'], 'charge replayed from the journal, then ship')
  })
}

test('fs: a wait past its deadline fails with a TimeoutError in the engine owning the state (marbles serve), or returns what the workflow chose', async () => {
  const root = await newProject('fs')
  const M = ['--root', root, '--source', FLOW]
  const failing = marbles([...M, 'run', 'deadline', '--input', '{"ms":400}'])
  assert.is(failing.code, 3, failing.stderr)
  assert.match(failing.stdout, /waiting for signal never until \d{4}-/)
  const fallback = runIdOf(marbles([...M, 'run', 'deadline', '--input', '{"ms":400,"fallback":true}']).stdout)
  const serve = start([...M, 'serve'])
  try {
    const id = runIdOf(failing.stdout)
    const failed = await until(
      () => ['failed', 'complete'].includes(runOf(root, id)?.status ?? '') && runOf(root, id),
      20_000,
      'the deadline',
    )
    assert.is(failed.status, 'failed')
    assert.equal(failed.error, { name: 'TimeoutError', message: 'waitFor never: no signal within 400 ms' })
    await until(() => runOf(root, fallback)?.status === 'complete', 20_000, 'the fallback run')
    const watched = marbles(['--root', root, 'watch', fallback])
    assert.match(watched.stdout, 'signal never timed out')
    assert.match(watched.stdout, 'result: {"fallback":true}')
  } finally {
    kill(serve.child)
    await serve.exited
  }
})

test("marbles mcp: get_run says waiting and for what; signal_run checks the data against the wait's schema, then resumes the run", async () => {
  const root = await newProject('fs')
  const mcp = await connectMcp(['--root', root, '--source', FLOW])
  try {
    const { runId } = (await mcp.call('dispatch_workflow', { name: 'approval', input: { dir: root } })).data
    const waiting = await mcp.settle(runId)
    assert.is(waiting.data.status, 'waiting')
    assert.equal(waiting.data.waitingFor, { signal: 'approve' })
    const bad = await mcp.call('signal_run', { runId, name: 'approve', data: { ok: 1 } })
    assert.is(bad.error, 'signal_run failed: Invalid data of signal approve: ok must be boolean')
    assert.is((await mcp.call('get_run', { runId })).data.status, 'waiting', 'it keeps waiting')
    const wrong = await mcp.call('signal_run', { runId, name: 'deploy' })
    assert.is(wrong.error, `signal_run failed: name: run ${runId} waits for the signal "approve", not "deploy"`)
    const sent = await mcp.call('signal_run', { runId, name: 'approve', data: { ok: false } })
    assert.is(sent.error, undefined)
    assert.ok(['running', 'completed'].includes(sent.data.status), sent.text)
    const done = await mcp.settle(runId)
    assert.is(done.data.status, 'completed')
    assert.equal(done.data.output, { ok: false })
  } finally {
    await mcp.client.close()
  }
})

/** A workspace folder the test rewrites between commands, with `@foundry/marbles` installed beside it. */
function versionedSource() {
  const dir = mkdtempSync(join(tmpdir(), 'marbles-versioned-'))
  mkdirSync(join(dir, 'node_modules', '@foundry'), { recursive: true })
  symlinkSync(join(HERE, '..'), join(dir, 'node_modules', '@foundry', 'marbles'), 'dir')
  const write = ({ version, step, compatible }: { version: number; step: string; compatible?: string[] }) =>
    writeFileSync(
      join(dir, 'order.ts'),
      `import { appendFileSync } from 'node:fs'
import { workflow } from '@foundry/marbles'
export const order = workflow({
  name: 'order',
  version: ${version},
  ${compatible ? `compatible: ${JSON.stringify(compatible)},` : ''}
  async run(ctx, input: { dir: string }) {
    await ctx.step('${step}', () => appendFileSync(input.dir + '/effects.log', '${step}\\n'))
    await ctx.waitFor('go')
    await ctx.step('ship', () => appendFileSync(input.dir + '/effects.log', 'ship\\n'))
    return 'shipped'
  },
})
`,
    )
  return { dir, write }
}

test.run()
