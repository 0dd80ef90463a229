import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createKernel, type Fact } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { tempRoot } from './helpers.js'

const cacheFile = (root: string, collection: string) => join(root, '.foundry', 'cache', `${collection}.records.json`)

/** Rewrite every entry of a record cache, keeping each file's identity (so the entry is a hit). */
function tamper(path: string, change: (record: Record<string, unknown>) => unknown) {
  const stored = JSON.parse(readFileSync(path, 'utf8'))
  for (const key of Object.keys(stored.entries)) stored.entries[key][1] = change(stored.entries[key][1])
  writeFileSync(path, JSON.stringify(stored))
}

test('a record cache entry with the right file identity and wrong field types is discarded, re-read from the file and rewritten', async () => {
  const root = tempRoot()
  const seed = createKernel({ storage: fsStorage({ root, durable: false }), root })
  await seed.memory.write({
    title: 'Billing retries failed charges',
    body: 'Three times.',
    type: 'domain',
    tags: ['billing'],
  })
  await seed.memory.write({ title: 'Invoices are immutable', body: 'Never edited once sent.', type: 'domain' })
  await seed.runbooks.put({ slug: 'deploy', title: 'Deploy', body: '1. Ship it.' })
  await seed.close()
  const fresh = await fsStorage({ root }).list('facts')
  await fsStorage({ root }).list('runbooks')
  assert.is(fresh.length, 2)

  const bad: Array<(r: Record<string, unknown>) => unknown> = [
    (r) => ({ ...r, title: null, tags: null, created: 7 }),
    () => null,
    () => 'fact',
    (r) => ({ ...r, id: 'fact-0999' }), // names another fact
  ]
  for (const change of bad) {
    tamper(cacheFile(root, 'facts'), change)
    tamper(cacheFile(root, 'runbooks'), (r) => ({ ...r, body: null }))
    const kernel = createKernel({ storage: fsStorage({ root }), root })
    assert.equal(await kernel.memory.list(), fresh, 'list reads the files')
    assert.equal(
      (await kernel.memory.search({ query: 'billing' })).hits.map((h) => h.fact.id),
      ['fact-0001'],
    )
    assert.is((await kernel.memory.index()).index.total, 2)
    assert.equal(
      (await fsStorage({ root }).list('runbooks')).map((r) => r.body),
      ['1. Ship it.'],
    )
    await kernel.close()
    const rebuilt = JSON.parse(readFileSync(cacheFile(root, 'facts'), 'utf8'))
    assert.equal(
      Object.values(rebuilt.entries).map((e) => (e as [string, unknown])[1]),
      fresh,
      'the cache holds the files’ records again',
    )
  }
  const writer = createKernel({ storage: fsStorage({ root }), root })
  tamper(cacheFile(root, 'facts'), (r) => ({ ...r, status: 5 }))
  assert.is(
    (await writer.memory.write({ title: 'Refunds go through billing', body: 'Always.', type: 'domain' })).id,
    'fact-0003',
  )
  await writer.close()
})

test('a record cache that is not an object of entries is discarded', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  const fact: Fact = {
    id: 'fact-0001',
    title: 'T',
    body: 'B',
    type: 'domain',
    scope: 'project',
    tags: [],
    confidence: 'medium',
    source: 'code',
    created: '2026-01-01T00:00:00.000Z',
    status: 'active',
  }
  await storage.put('facts', 'fact-0001', fact)
  await storage.list('facts')
  for (const text of [
    '{"format":"foundry-records/1","entries":[1,2]}',
    '{"format":"foundry-records/1","entries":{"fact-0001":null}}',
    '{"format":"foundry-records/1","entries":{"fact-0001":[null]}}',
    'null',
  ])
    writeFileSync(cacheFile(root, 'facts'), text), assert.equal(await fsStorage({ root }).list('facts'), [fact], text)
})

test.run()
