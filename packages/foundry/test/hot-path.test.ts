import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { hotCall } from '../src/cli/hot/args.js'
import { BIN, cleanup, cli, tempDir } from './helpers.js'

const test = suite('foundry list and search, the hot path')
test.after(cleanup)

test('only list and search <query> with global options take the hot path; everything else is the whole program', () => {
  assert.equal(hotCall(['list']), { command: 'list', globals: {} })
  assert.equal(hotCall(['--root', '/p', 'search', 'port', '--json']), {
    command: 'search',
    query: 'port',
    globals: { root: '/p', json: true },
  })
  for (const args of [
    ['list', '--all'],
    ['list', '--type', 'risk'],
    ['search'],
    ['search', 'a', 'b'],
    ['search', '--limit', '3', 'port'],
    ['--root=/p', 'list'],
    ['--root', '--json', 'list'],
    ['list', '--help'],
    ['show', 'fact-0001'],
    [],
  ])
    assert.is(hotCall(args), undefined, args.join(' '))
})

test('the hot path prints what the whole program prints, byte for byte, answers and errors alike', () => {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  for (const title of ['Service A listens on port 8001', 'Deploys run from the release branch'])
    assert.is(
      cli(['write', '--type', 'convention', '--title', title, '--body', 'Agreed in review.'], { cwd: root }).code,
      0,
    )
  // `--root=<dir>` is the same call, answered by the whole program (commander reads it; the hot path does not).
  for (const args of [
    ['list'],
    ['list', '--json'],
    ['search', 'port'],
    ['search', 'port', '--json'],
    ['search', 'nothing matches zzz'],
  ]) {
    const hot = cli(['--root', root, ...args])
    const whole = cli([`--root=${root}`, ...args])
    assert.is(hot.code, 0, hot.stderr)
    assert.equal(hot, whole, args.join(' '))
  }
  const nowhere = tempDir()
  for (const args of [['list'], ['search', 'port']]) {
    const hot = cli(['--root', nowhere, ...args])
    assert.is(hot.code, 1)
    assert.match(hot.stderr, /^error: .+\n$/)
    assert.equal(hot, cli([`--root=${nowhere}`, ...args]), args.join(' '))
  }
})

test('dist/bin/foundry.js, the former path, runs the bin', () => {
  const root = tempDir()
  const former = spawnSync(process.execPath, [join(BIN, '..', 'foundry.js'), 'list'], { cwd: root, encoding: 'utf8' })
  const bin = cli(['list'], { cwd: root })
  assert.equal([former.status, former.stdout, former.stderr], [bin.code, bin.stdout, bin.stderr])
})

test.run()
