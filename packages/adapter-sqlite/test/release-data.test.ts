import { copyFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createKernel } from '@foundry/kernel'
import { dumpStorage } from '@foundry/kernel/testing'
import Database from 'better-sqlite3'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ftsRetriever, sqliteStorage } from '../src/index.js'
import { tempDb } from './helpers.js'

// A database written by release 0.1.0 (test/fixtures/make-release-data.ts), and what it read back then.
const fixtures = fileURLToPath(new URL('fixtures/', import.meta.url))
const expected = JSON.parse(readFileSync(join(fixtures, 'release-0.1.json'), 'utf8')) as unknown
const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown

/** A copy of the release's database, so a test's writes never touch the fixture. */
function releaseCopy(): string {
  const path = tempDb()
  copyFileSync(join(fixtures, 'release-0.1.db'), path)
  return path
}

test('a database written by release 0.1.0 reads back the same: records, index, events, open collections and logs', async () => {
  const storage = sqliteStorage({ path: releaseCopy() })
  assert.equal(json(await dumpStorage(storage)), expected)
  await storage.close?.()
})

test('writing to a release 0.1.0 database adds rows to the same tables: events to events, entries to logs', async () => {
  const path = releaseCopy()
  const count = (table: string) => {
    const db = new Database(path, { readonly: true })
    try {
      return db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number
    } finally {
      db.close()
    }
  }
  const [events, entries] = [count('events'), count('logs')]
  const storage = sqliteStorage({ path })
  const kernel = createKernel({ storage, retriever: ftsRetriever({ path }) })
  const written = await kernel.memory.write({
    title: 'Refunds go through the ledger',
    body: 'Never edit a paid invoice.',
    type: 'convention',
  })
  assert.is(written.id, 'fact-0043', "the next id after the release's facts")
  assert.is(
    (await kernel.memory.search({ query: 'invoice tax document' })).hits[0]?.fact.id,
    'fact-0005',
    "the release's facts are found",
  )
  await storage.appendLog('marbles/run-1', ['after'])
  await kernel.close()
  assert.ok(count('events') > events, 'events appended to the events table')
  assert.is(count('logs'), entries + 1, 'the entry appended to the logs table')
})

test.run()
