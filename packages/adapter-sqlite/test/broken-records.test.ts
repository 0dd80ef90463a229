import Database from 'better-sqlite3'
import { createKernel, type StorageProblem } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { sqliteStorage } from '../src/index.js'
import { tempDb } from './helpers.js'

test('a fact row that cannot be read keeps its id: the next write gets a new one and the row is untouched', async () => {
  const path = tempDb()
  const writer = createKernel({ storage: sqliteStorage({ path }) })
  await writer.memory.write({ title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' })
  await writer.memory.write({ title: 'Dates are stored in UTC', body: 'Converted at the edge.', type: 'convention' })
  await writer.close()

  const db = new Database(path)
  db.prepare(
    `UPDATE records SET value = replace(value, '"convention"', '"conventionz"') WHERE collection = 'facts' AND key = 'fact-0002'`,
  ).run()
  const broken = db.prepare(`SELECT value FROM records WHERE collection = 'facts' AND key = 'fact-0002'`).pluck().get()
  db.close()

  const problems: StorageProblem[] = []
  const kernel = createKernel({ storage: sqliteStorage({ path }), onProblem: (p) => problems.push(p) })
  const written = await kernel.memory.write({
    title: 'Logs are JSON lines',
    body: 'One object a line.',
    type: 'convention',
  })
  assert.is(written.id, 'fact-0003', written.text)
  // The write reads only its candidates (the write catalog); a full read meets the broken row and reports it.
  assert.equal(
    (await kernel.memory.list()).map((f) => f.id),
    ['fact-0001', 'fact-0003'],
  )
  assert.equal(
    problems.map((p) => p.key),
    ['fact-0002'],
  )
  await kernel.close()

  const after = new Database(path, { readonly: true })
  assert.is(
    after.prepare(`SELECT value FROM records WHERE collection = 'facts' AND key = 'fact-0002'`).pluck().get(),
    broken,
  )
  after.close()
})

test.run()
