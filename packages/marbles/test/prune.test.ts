// Retention and run search through the built bin: marbles prune, the marbles.retention setting, marbles runs filters.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openState } from '../src/state.js'
import { BASIC, marbles, newProject, STORAGES } from './helpers.js'

type Listed = { id: string; name: string; status: string }

for (const kind of STORAGES) {
  test(`${kind}: runs --status --workflow --since narrow the list; prune removes finished runs and their journals, never a queued one`, async () => {
    const root = await newProject(kind)
    const bin = (...args: string[]) => marbles(['--root', root, '--source', BASIC, ...args])
    const runs = (...args: string[]) =>
      (JSON.parse(bin('--json', 'runs', ...args).stdout) as { runs: Listed[] }).runs.map((r) => r.id).sort()
    const run = (name: string, input: object = {}, ...flags: string[]) =>
      bin('run', name, '--input', JSON.stringify(input), ...flags)
        .stdout.split('\n')[0]!
        .trim()
    const hellos = [run('hello', { who: 'a' }), run('hello', { who: 'b' })].sort()
    const failed = run('fails')
    const queued = run('hello', { who: 'later' }, '--detach') // nobody serves: it stays queued

    assert.equal(runs('--status', 'complete', '--workflow', 'hello'), hellos)
    assert.equal(runs('--status', 'failed,queued'), [failed, queued].sort())
    assert.equal(runs('--since', '1h'), [...hellos, failed, queued].sort())
    assert.equal(runs('--since', '2999-01-01'), [])
    const bad = bin('runs', '--status', 'done')
    assert.is(bad.code, 1)
    assert.match(
      bad.stderr,
      /^error: --status must be one or more of queued, running, suspended, cancel_requested, complete, failed, cancelled \(comma-separated\); got "done"/,
    )
    assert.match(bin('runs', '--since', 'yesterday').stderr, /^error: --since must be an age like 2h or 7d, or a date/)

    const some = JSON.parse(bin('--json', 'prune', '--older-than', '0s', '--status', 'failed').stdout) as {
      pruned: string[]
    }
    assert.equal(some.pruned, [failed])
    assert.is(bin('watch', failed).code, 4, 'its journal is gone: an unknown run')
    assert.match(
      bin('prune', '--status', 'running').stderr,
      /^error: --status: prune removes finished runs only \(complete, failed, cancelled\); got "running"/,
    )
    assert.match(bin('prune').stdout, /^Pruned 0 finished runs/, 'the default retention keeps what finished today')

    // The retention setting in config.json.
    const file = join(root, '.foundry', 'config.json')
    const config = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}
    writeFileSync(file, JSON.stringify({ ...config, marbles: { retention: '0s' } }))
    assert.match(bin('prune').stdout, /^Pruned 2 finished runs/)
    assert.equal(runs(), [queued], 'the queued run stays')
    for (const id of hellos) assert.is(bin('watch', id).code, 4)

    writeFileSync(file, JSON.stringify({ ...config, marbles: { concurrency: 0 } }))
    const refused = bin('runs')
    assert.is(refused.code, 1)
    assert.match(refused.stderr, /^error: Invalid .*config\.json: marbles: .*concurrency/)
  })
}

for (const kind of STORAGES)
  test(`${kind}: prune removes a pruned run's blackboard artifacts, and only its`, async () => {
    const root = await newProject(kind)
    const bin = (...args: string[]) => marbles(['--root', root, '--source', BASIC, ...args])
    const big = bin('run', 'big').stdout.split('\n')[0]!.trim()
    const state = await openState({ root })
    try {
      assert.equal(await state.artifacts.keys('artifacts', `${big}/`), [`${big}/output`], 'its large output')
      await state.artifacts.put('artifacts', 'notes/summary', {
        wave: 'notes',
        agent: 'summary',
        data: { schema: 'notes', producedBy: 'a person', summary: 'kept' },
      })
      assert.match(bin('prune', '--older-than', '0s').stdout, /^Pruned 1 finished run/)
      assert.equal(await state.artifacts.keys('artifacts', `${big}/`), [], 'its artifacts went with it')
      assert.ok(await state.artifacts.get('artifacts', 'notes/summary'), 'an artifact of no run stays')
    } finally {
      await state.close()
    }
  })

test.run()
