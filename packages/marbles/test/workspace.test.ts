// Start-up: finding the workspace, checking its environment before any module loads, loading modules with jiti.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { loadWorkspace } from '../src/workspace/load.js'
import { nextCron, parseCron } from '../src/triggers/cron.js'
import { defineWorkspace } from '../src/define/registry.js'
import { schedule, workflow } from '../src/index.js'
import { HERE, marbles } from './helpers.js'

const fixture = (name: string) => join(HERE, 'fixtures', name)

test('a missing source stops start-up with one line naming the path', () => {
  const run = marbles(['--source', '/nowhere/flows.ts', 'list'])
  assert.is(run.code, 1)
  assert.is(run.stderr, 'error: Marbles source not found: /nowhere/flows.ts\n')
  const none = marbles(['--root', mkdtempSync(join(tmpdir(), 'marbles-empty-')), 'list'])
  assert.is(none.code, 1)
  assert.match(
    none.stderr,
    /^error: No Marbles workspace: neither \S+\/\.foundry\/marbles nor \S+\/marbles\.config\.ts exists \(pass --source FILE\|DIR\)\n$/,
  )
})

test('a module that throws stops start-up with one line naming the file', () => {
  const run = marbles(['--source', fixture('throws'), 'list'])
  assert.is(run.code, 1)
  assert.match(run.stderr, /^error: Cannot load \S*fixtures\/throws\/boom\.ts: module scope exploded\n$/)
  assert.is(run.stdout, '')
})

test('the deprecated env.schema.json is checked before modules load: a missing or invalid variable is named, its value never shown', () => {
  const missing = marbles(['--source', fixture('env'), 'list'], { env: { MARBLES_TEST_TOKEN: '' } })
  assert.is(missing.code, 1)
  assert.match(
    missing.stderr,
    /^marbles: \S+env\.schema\.json is deprecated[^\n]*\nerror: Environment variable MARBLES_TEST_TOKEN is missing \(required by \S+env\.schema\.json\)\n$/,
  )
  const short = marbles(['--source', fixture('env'), 'list'], { env: { MARBLES_TEST_TOKEN: 's3cr3t' } })
  assert.is(short.code, 1)
  assert.match(
    short.stderr,
    /^marbles: \S+env\.schema\.json is deprecated[^\n]*\nerror: Environment variable MARBLES_TEST_TOKEN is invalid \(\S+\): must be string, at least 8 characters\n$/,
  )
  assert.not.match(short.stderr, /s3cr3t/)
  const port = marbles(['--source', fixture('env'), 'list'], {
    env: { MARBLES_TEST_TOKEN: 'long-enough-token', MARBLES_TEST_PORT: 'not-a-port-q7z' },
  })
  assert.match(
    port.stderr,
    /^marbles: \S+env\.schema\.json is deprecated[^\n]*\nerror: Environment variable MARBLES_TEST_PORT is invalid \(\S+\): must be integer, ≥ 1, ≤ 65535\n$/,
  )
  assert.not.match(port.stderr, /not-a-port-q7z/)
  const ok = marbles(['--source', fixture('env'), 'list'], {
    env: { MARBLES_TEST_TOKEN: 'long-enough-token', MARBLES_TEST_PORT: '8080' },
  })
  assert.is(ok.code, 0, ok.stderr)
  assert.match(ok.stdout, /workflow env/)
})

test('the legacy marbles.config.ts is the fallback; .foundry/marbles/ wins over it', async () => {
  const legacy = await loadWorkspace({ root: fixture('legacy') })
  assert.equal([...legacy.definitions.runnables.keys()], ['legacy'])
  const root = mkdtempSync(join(tmpdir(), 'marbles-ws-'))
  mkdirSync(join(root, '.foundry', 'marbles'), { recursive: true })
  writeFileSync(join(root, 'marbles.config.ts'), `export default 1\n`)
  writeFileSync(
    join(root, '.foundry', 'marbles', 'a.mjs'),
    `export const a = { [Symbol.for('foundry.marbles.kind')]: 'workflow', name: 'plain', run: () => 1 }\n`,
  )
  writeFileSync(join(root, '.foundry', 'marbles', 'notes.d.ts'), `export {}\n`)
  const found = await loadWorkspace({ root })
  assert.equal([...found.definitions.runnables.keys()], ['plain'])
  assert.is(found.source.files.length, 1, 'declaration files are not modules')
})

test('a name declared twice names both places; a schedule naming an unknown workflow is refused', () => {
  const w = workflow({ name: 'w', run: () => 1 })
  assert.throws(
    () => defineWorkspace(w, workflow({ name: 'w', run: () => 2 })),
    /workflow "w" is declared twice: in code and in code/,
  )
  assert.throws(
    () => defineWorkspace(schedule({ name: 's', workflow: 'ghost', every: '1m' })),
    /schedule "s" \(code\) names workflow "ghost", which no module declares/,
  )
  assert.throws(() => schedule({ name: 's', workflow: w, every: 'soon' }), /every must be milliseconds/)
  assert.throws(() => workflow({ name: '1bad', run: () => 1 }), /workflow name "1bad" is invalid/)
})

test('cron: five fields, ranges, steps, lists; the next minute that matches', () => {
  const at = new Date(2026, 0, 5, 10, 7) // a Monday
  assert.equal(nextCron(parseCron('*/15 * * * *'), at), new Date(2026, 0, 5, 10, 15))
  assert.equal(nextCron(parseCron('0 9-17 * * 1-5'), at), new Date(2026, 0, 5, 11, 0))
  assert.equal(nextCron(parseCron('30 2 * * 0'), at), new Date(2026, 0, 11, 2, 30))
  assert.equal(nextCron(parseCron('0 0 1,15 * *'), at), new Date(2026, 0, 15, 0, 0))
  assert.throws(() => parseCron('* * *'), /five fields/)
  assert.throws(() => parseCron('61 * * * *'), /minute "61" is outside 0-59/)
})

test('--help everywhere', () => {
  for (const args of [
    ['--help'],
    ['run', '--help'],
    ['watch', '--help'],
    ['runs', '--help'],
    ['cancel', '--help'],
    ['list', '--help'],
    ['serve', '--help'],
    ['mcp', '--help'],
  ]) {
    const run = marbles(args)
    assert.is(run.code, 0, args.join(' '))
    assert.match(run.stdout, /Usage: marbles/)
  }
})

test.run()
