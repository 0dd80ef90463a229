// What a workspace module prints at import goes to stderr: a command's stdout carries only its answer.
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { RUN_ID_PATTERN } from '../src/engine/ids.js'
import { HERE, marbles, newProject, STORAGES } from './helpers.js'

const NOISY = join(HERE, 'fixtures', 'noisy')

for (const kind of STORAGES) {
  test(`${kind}: run --detach prints only the run id and list --json only the JSON, though a module logs at import`, async () => {
    const root = await newProject(kind)
    const detached = marbles(['--root', root, '--source', NOISY, 'run', 'quiet', '--detach'])
    assert.is(detached.code, 0, detached.stderr)
    assert.match(detached.stdout, new RegExp(`^${RUN_ID_PATTERN.source.slice(1, -1)}\\n$`), 'the id alone')
    assert.match(detached.stderr, /noisy module loaded \(console\.log\)/, 'the module line is on stderr')

    const listed = marbles(['--root', root, '--source', NOISY, '--json', 'list'])
    assert.is(listed.code, 0, listed.stderr)
    assert.equal(
      JSON.parse(listed.stdout).runnables.map((r: { name: string }) => r.name),
      ['quiet'],
    )
    assert.match(listed.stderr, /noisy module loaded \(console\.info\)/)
  })
}

test.run()
