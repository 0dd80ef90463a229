import { createKernel, factId } from '@foundry/kernel'
import Database from 'better-sqlite3'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ftsRetriever, sqliteStorage } from '../src/index.js'
import { runChild, startChild, waitForLine } from './child.js'
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

  const retriever = ftsRetriever({ path })
  const kernel = createKernel({ storage, retriever })
  const found = await kernel.memory.search({ query: 'worker', scope: 'module:w3', limit: 25 })
  assert.is(await retriever.revision(), await storage.revision('facts'), 'the FTS index caught up with every write')
  assert.is(found.hits.length, 25)
  assert.ok(found.hits.every((h) => h.fact.scope === 'module:w3'))
  await kernel.close()
})

const APPENDERS = 6
const CALLS = 40
const SIZE = 3

test(`${APPENDERS} processes × ${CALLS} appendLog calls of ${SIZE} entries into one log: every entry kept, each call's entries together, seqs gapless`, async () => {
  const path = tempDb()
  const log = 'marbles/run-1'
  const children = Array.from({ length: APPENDERS }, (_, k) => startChild('log-appender', [path, log, `w${k}`, String(CALLS), String(SIZE)]))
  await Promise.all(children.map((child) => waitForLine(child, 'ready')))
  const outputs = children.map(
    (child) =>
      new Promise<number[]>((resolve, reject) => {
        let out = ''
        let err = ''
        child.stdout.on('data', (d) => (out += d))
        child.stderr.on('data', (d) => (err += d))
        child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as number[]) : reject(new Error(`appender exited with ${code}: ${err.trim()}`))))
      }),
  )
  // Start every appender at once, so their calls contend for the write lock.
  for (const child of children) child.stdin.end('go\n')
  const cursors = await Promise.all(outputs)

  const total = APPENDERS * CALLS * SIZE
  const storage = sqliteStorage({ path })
  const { entries, cursor } = await storage.readLog(log, 0)
  assert.is(entries.length, total, 'every entry kept')
  assert.is(cursor, total)
  assert.is(await storage.logEnd(log), total)
  const db = new Database(path, { readonly: true })
  const seqs = db.prepare('SELECT seq FROM logs WHERE name = ? ORDER BY seq').pluck().all(log)
  db.close()
  assert.equal(seqs, Array.from({ length: total }, (_, i) => i + 1), 'seqs 1 … total, no gaps, none twice')
  for (const [k, returned] of cursors.entries()) {
    assert.is(returned.length, CALLS, `worker ${k} made every call`)
    assert.ok(returned.every((c, i) => i === 0 || c > returned[i - 1]!), `worker ${k}'s calls are in its own order`)
    for (const [call, end] of returned.entries()) {
      const expected = Array.from({ length: SIZE }, (_, i) => `w${k}:${call}:${i}`)
      assert.equal(entries.slice(end - SIZE, end), expected, `worker ${k} call ${call}: its entries together, ending at the cursor it was given`)
    }
  }
  const switches = entries.filter((e, i) => i > 0 && e.split(':')[0] !== entries[i - 1]!.split(':')[0]).length
  assert.ok(switches >= APPENDERS, `the appenders' calls interleave (${switches} switches), so they really ran at once`)
  assert.is(new Set(cursors.flat()).size, APPENDERS * CALLS, 'no two calls were given the same cursor')
  const paged: string[] = []
  for (let at = 0; at < total; ) {
    const page = await storage.readLog(log, at, { limit: 7 })
    paged.push(...page.entries)
    at = page.cursor
  }
  assert.equal(paged, entries, 'reading in pages gives the same entries')
  await storage.close?.()
})

test.run()
