import { cpSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createKernel } from '@foundry/kernel'
import { dumpStorage } from '@foundry/kernel/testing'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { tempRoot, walk } from './helpers.js'

// A project folder written by release 0.1.0 (test/fixtures/make-release-data.ts), and what it read back then.
const fixtures = fileURLToPath(new URL('fixtures/', import.meta.url))
const expected = JSON.parse(readFileSync(join(fixtures, 'release-0.1.json'), 'utf8')) as unknown
const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown

/** A copy of the release's folder, so a test's writes never touch the fixture. */
function releaseCopy(): string {
  const root = tempRoot()
  cpSync(join(fixtures, 'release-0.1'), root, { recursive: true })
  return root
}

test('a folder written by release 0.1.0 reads back the same: records, index, events, open collections and logs', async () => {
  const storage = fsStorage({ root: releaseCopy() })
  assert.equal(json(await dumpStorage(storage)), expected)
  await storage.close?.()
})

test('writing to a release 0.1.0 folder adds to the same files: nothing on disk moves', async () => {
  const root = releaseCopy()
  const before = walk(join(root, '.foundry')).filter((path) => !path.startsWith('cache/'))
  const events = readFileSync(join(root, '.foundry', 'metrics', 'events.jsonl'), 'utf8')
  const log = readFileSync(join(root, '.foundry', 'logs', 'marbles', 'run-1.jsonl'), 'utf8')
  const storage = fsStorage({ root })
  const kernel = createKernel({ storage })
  const written = await kernel.memory.write({
    title: 'Refunds go through the ledger',
    body: 'Never edit a paid invoice.',
    type: 'convention',
  })
  assert.is(written.id, 'fact-0043', "the next id after the release's facts")
  await storage.appendLog('marbles/run-1', ['after'])
  await kernel.close()
  const after = walk(join(root, '.foundry')).filter((path) => !path.startsWith('cache/'))
  assert.equal(
    after.filter((path) => !before.includes(path)),
    ['memory/facts/fact-0043.md'],
    'one new file: the new fact',
  )
  const eventsAfter = readFileSync(join(root, '.foundry', 'metrics', 'events.jsonl'), 'utf8')
  assert.ok(
    eventsAfter.startsWith(events) && eventsAfter.length > events.length,
    'events appended to metrics/events.jsonl',
  )
  assert.is(
    readFileSync(join(root, '.foundry', 'logs', 'marbles', 'run-1.jsonl'), 'utf8'),
    `${log}"after"\n`,
    'the log appended in place',
  )
})

test.run()
