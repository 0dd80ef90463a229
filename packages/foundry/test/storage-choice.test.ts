import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanup, cli, tempDir } from './helpers.js'

/*
 * The storage a project keeps its data in is chosen once, by init: nothing else may quietly start a
 * second memory beside it, and an init that fails leaves nothing that breaks the next one.
 */

const test = suite('the storage choice: no hidden second store, no half-made project')
test.after(cleanup)

/** The environment without a database URL, so a postgres init has none. */
const noUrl = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'FOUNDRY_DATABASE_URL')) as Record<
  string,
  string
>

test('--storage sqlite on a folder project is refused naming both storages; nothing is written anywhere', () => {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  assert.is(
    cli(['write', '--title', 'Money is stored in integer cents', '--body', 'Never floats.', '--type', 'convention'], {
      cwd: root,
    }).code,
    0,
  )
  const before = readdirSync(join(root, '.foundry')).sort()

  const write = cli(
    [
      '--storage',
      'sqlite',
      'write',
      '--title',
      'Dates are stored in UTC',
      '--body',
      'At the edge.',
      '--type',
      'convention',
    ],
    { cwd: root },
  )
  assert.is(write.code, 1, write.stdout)
  assert.match(write.stderr, /^error: .*storage "fs".*not "sqlite"/)
  assert.not.ok(existsSync(join(root, '.foundry', 'foundry.db')), 'no hidden database')
  assert.equal(readdirSync(join(root, '.foundry')).sort(), before)
  assert.is(cli(['--storage', 'sqlite', 'doctor'], { cwd: root }).code, 1)

  // The same kind is no conflict.
  const same = cli(['--storage', 'fs', 'list'], { cwd: root })
  assert.is(same.code, 0, same.stderr)
  assert.match(same.stdout, /fact-0001/)
})

test('a failed init --storage postgres (no URL) leaves nothing; a plain init then works', () => {
  const root = tempDir()
  const failed = cli(['init', '--storage', 'postgres'], { cwd: root, env: noUrl })
  assert.is(failed.code, 1, failed.stdout)
  assert.match(failed.stderr, /FOUNDRY_DATABASE_URL/)
  assert.not.ok(existsSync(join(root, '.foundry')), 'no .foundry/ left behind')

  const plain = cli(['init'], { cwd: root, env: noUrl })
  assert.is(plain.code, 0, plain.stderr)
  assert.match(plain.stdout, /storage fs/)
})

test.run()
