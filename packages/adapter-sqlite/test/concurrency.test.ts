import { createKernel, factId } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ftsRetriever, sqliteStorage } from '../src/index.js'
import { runChild } from './child.js'
import { tempDb } from './helpers.js'

const WORKERS = 8
const WRITES = 100

test(`${WORKERS} processes × ${WRITES} memory writes into one database: every fact kept, ids gapless`, async () => {
  const path = tempDb()
  const outputs = await Promise.all(Array.from({ length: WORKERS }, (_, k) => runChild('writer', [path, String(k), String(WRITES)])))
  const given = outputs.flatMap((out) => JSON.parse(out) as string[])
  const total = WORKERS * WRITES
  const expected = Array.from({ length: total }, (_, i) => factId(i + 1))
  assert.equal([...given].sort(), [...expected].sort(), 'each id was handed out exactly once')

  const storage = sqliteStorage({ path })
  const facts = await storage.list('facts')
  assert.is(facts.length, total)
  assert.equal(new Set(facts.map((f) => f.id)), new Set(expected), `fact-0001 … ${factId(total)}, no gaps`)
  assert.ok(facts.every((f) => f.status === 'active'), 'no write superseded another')
  for (let k = 0; k < WORKERS; k++) assert.is(facts.filter((f) => f.scope === `module:w${k}`).length, WRITES, `worker ${k}`)
  assert.is((await storage.readEvents()).filter((e) => e.kind === 'memory_write').length, total, 'one event per write')

  const kernel = createKernel({ storage, retriever: ftsRetriever({ path }) })
  const found = await kernel.memory.search({ query: 'worker', scope: 'module:w3', limit: 25 })
  assert.is(await kernel.retriever.revision(), await storage.revision('facts'), 'the FTS index caught up with every write')
  assert.is(found.hits.length, 25)
  assert.ok(found.hits.every((h) => h.fact.scope === 'module:w3'))
  await kernel.close()
})

test.run()
