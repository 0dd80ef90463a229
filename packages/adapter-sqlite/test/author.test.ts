import { createKernel } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ftsRetriever, sqliteStorage } from '../src/index.js'
import { tempDb } from './helpers.js'

const open = (path: string) => createKernel({ storage: sqliteStorage({ path }), retriever: ftsRetriever({ path }) })

test('a fact written for a team token keeps its author beside source, across a reload; one written without stays without', async () => {
  const path = tempDb()
  const first = open(path)
  await first.memory.write({ title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' }, { author: 'walt' })
  await first.memory.write({ title: 'Invoices are numbered per year', body: 'INV-2026-0001.', type: 'convention' })
  await first.close()
  const second = open(path)
  try {
    const [a, b] = await second.memory.list({})
    assert.equal([a!.id, a!.source, a!.author], ['fact-0001', 'conversation', 'walt'])
    assert.equal([b!.id, 'author' in b!], ['fact-0002', false])
  } finally {
    await second.close()
  }
})

test.run()
