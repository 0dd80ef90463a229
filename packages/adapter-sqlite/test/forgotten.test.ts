import { createKernel } from '@foundry/kernel'
import Database from 'better-sqlite3'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ftsRetriever, sqliteStorage } from '../src/index.js'
import { tempDb } from './helpers.js'

const open = (path: string) => createKernel({ storage: sqliteStorage({ path }), retriever: ftsRetriever({ path }) })

test('a forgotten fact stays in the file with its status, reason and time, and survives a reload, out of FTS search', async () => {
  const path = tempDb()
  const first = open(path)
  await first.memory.write({ title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' })
  await first.memory.write({
    title: 'Invoices are numbered per year',
    body: 'INV-2026-0001, in integer cents.',
    type: 'convention',
  })
  assert.is((await first.memory.search({ query: 'integer cents' })).hits.length, 2, 'both found before')
  const { forgotten } = await first.memory.forget('fact-0001', 'We store decimals now')
  await first.close()

  const db = new Database(path, { readonly: true })
  const row = db.prepare("SELECT value FROM records WHERE collection = 'facts' AND key = 'fact-0001'").get() as {
    value: string
  }
  db.close()
  const stored = JSON.parse(row.value) as Record<string, unknown>
  assert.equal(
    [stored.status, stored.forgotten, stored.forgottenReason],
    ['forgotten', forgotten, 'We store decimals now'],
  )

  const second = open(path)
  try {
    assert.equal(
      (await second.memory.list({ status: 'forgotten' })).map((f) => [f.id, f.forgotten, f.forgottenReason]),
      [['fact-0001', forgotten, 'We store decimals now']],
    )
    assert.equal(
      (await second.memory.search({ query: 'integer cents' })).hits.map((h) => h.fact.id),
      ['fact-0002'],
    )
    assert.equal(
      (await second.memory.search({ query: 'fact-0001' })).hits.map((h) => h.fact.status),
      ['forgotten'],
      'still found by id',
    )
    assert.not.match(await second.memory.readIndex(), /fact-0001/)
    assert.is(await second.memory.activeCount(), 1)
  } finally {
    await second.close()
  }
})

test.run()
