// keepServing rewrites the console only when asked (the bins ask): a library caller keeps its console.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'

const SCRIPT = fileURLToPath(new URL('./fixtures/console.mjs', import.meta.url))

test('a library caller of keepServing keeps console.log on stdout', () => {
  const run = spawnSync(process.execPath, [SCRIPT, 'library'], { encoding: 'utf8' })
  assert.is(run.status, 0, run.stderr)
  assert.is(run.stdout, 'printed by console.log\n')
  assert.not.match(run.stderr, 'printed by console.log')
})

test('a bin (console: true) sends console.log to stderr: stdout is the protocol', () => {
  const run = spawnSync(process.execPath, [SCRIPT, 'bin'], { encoding: 'utf8' })
  assert.is(run.status, 0, run.stderr)
  assert.is(run.stdout, '')
  assert.match(run.stderr, 'printed by console.log')
})

test.run()
