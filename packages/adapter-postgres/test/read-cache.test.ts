import pg from 'pg'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { bm25Retriever, createKernel, type Storage } from '@foundry/kernel'
import { postgresStorage } from '../src/index.js'
import { runChild } from './child.js'
import { useServer } from './helpers.js'

const server = useServer(test)

/**
 * Change a record behind every storage's back (no revision bump, no notification): a `get` that
 * still answers the old text was served from the process's cache, one that answers the new text read the database.
 */
async function rewriteUnseen(url: string, collection: string, key: string, value: unknown): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query('UPDATE foundry_records SET value = $3 WHERE collection = $1 AND key = $2', [
      collection,
      key,
      JSON.stringify(value),
    ])
  } finally {
    await client.end()
  }
}

/** Resolves on the next notification of a change to `collection` that `storage`'s listener hears. */
function nextChange(storage: Storage, collection: string): Promise<void> {
  return new Promise((resolve) => {
    const stop = storage.onChange!((change) => {
      if ('collection' in change && change.collection === collection) {
        stop()
        resolve()
      }
    })
  })
}

let markers = 0
/**
 * Resolves once `storage`'s listener is connected and has heard every change committed before the
 * call: it hears a marker appended now (notifications arrive in commit order), appending another
 * while none is heard (a marker appended before LISTEN is never told).
 */
async function settled(storage: Storage): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const log = `test/marker-${++markers}`
    let heard = false
    const stop = storage.onChange!((change) => void ('log' in change && change.log === log && (heard = true)))
    await storage.appendLog(log, ['marker'])
    for (let wait = 0; wait < 100 && !heard; wait++) await new Promise((r) => setTimeout(r, 20))
    stop()
    if (heard) return
  }
  throw new Error('the change listener never heard a marker')
}

/** The listener connected and caught up, and `collection`'s revision known in memory (what a search reads first). */
async function warm(storage: Storage, collection: `${string}.${string}`): Promise<void> {
  await settled(storage)
  await storage.revision(collection)
}

test('a repeated get is served from memory at the revision it was read at', async () => {
  const url = await server.fresh()
  const storage = await postgresStorage({ url })
  try {
    await storage.put('test.things', 'a', 'one')
    await warm(storage, 'test.things')
    assert.is(await storage.get('test.things', 'a'), 'one')
    await rewriteUnseen(url, 'test.things', 'a', 'changed unseen')
    assert.is(await storage.get('test.things', 'a'), 'one', 'served from the cache: no round trip')
  } finally {
    await storage.close?.()
  }
})

test("another process's write is seen by the next get; records it did not change stay cached", async () => {
  const url = await server.fresh()
  const storage = await postgresStorage({ url })
  try {
    await storage.put('test.things', 'a', 'one')
    await storage.put('test.things', 'b', 'two')
    await warm(storage, 'test.things')
    assert.is(await storage.get('test.things', 'a'), 'one')
    assert.is(await storage.get('test.things', 'b'), 'two')
    const heard = nextChange(storage, 'test.things')
    await runChild('writer', [url, 'put', 'test.things', 'a="one, rewritten by another process"'])
    await heard
    await rewriteUnseen(url, 'test.things', 'b', 'changed unseen')
    await storage.revision('test.things')
    assert.is(await storage.get('test.things', 'a'), 'one, rewritten by another process')
    assert.is(await storage.get('test.things', 'b'), 'two', 'b was not in the change log: still served from memory')
  } finally {
    await storage.close?.()
  }
})

test('when the change log no longer reaches back to a cached record, it is read again', async () => {
  const url = await server.fresh()
  const storage = await postgresStorage({ url, changeLogSize: 2 })
  const other = await postgresStorage({ url, changeLogSize: 2 })
  try {
    await storage.put('test.things', 'a', 'one')
    await warm(storage, 'test.things')
    assert.is(await storage.get('test.things', 'a'), 'one')
    await rewriteUnseen(url, 'test.things', 'a', 'changed unseen')
    for (const key of ['x', 'y', 'z', 'w']) await other.put('test.things', key, key)
    await settled(storage)
    await storage.revision('test.things')
    assert.is(await storage.get('test.things', 'a'), 'changed unseen')
  } finally {
    await other.close?.()
    await storage.close?.()
  }
})

test('a write of its own is read back at once; readCacheSize 0 keeps nothing', async () => {
  const url = await server.fresh()
  const storage = await postgresStorage({ url })
  const uncached = await postgresStorage({ url, readCacheSize: 0 })
  try {
    await storage.put('test.things', 'a', 'one')
    await warm(storage, 'test.things')
    await warm(uncached, 'test.things')
    assert.is(await storage.get('test.things', 'a'), 'one')
    await storage.put('test.things', 'a', 'two')
    assert.is(await storage.get('test.things', 'a'), 'two')
    assert.is(await uncached.get('test.things', 'a'), 'two')
    await rewriteUnseen(url, 'test.things', 'a', 'changed unseen')
    assert.is(await uncached.get('test.things', 'a'), 'changed unseen')
  } finally {
    await uncached.close?.()
    await storage.close?.()
  }
})

test('the cache holds readCacheSize characters: the least recently used records go first', async () => {
  const url = await server.fresh()
  const storage = await postgresStorage({ url, readCacheSize: 6400 })
  try {
    const text = 'x'.repeat(60) // 62 characters as stored: about a hundred fit
    for (let i = 0; i < 200; i++) await storage.put('test.things', `k${i}`, text)
    await warm(storage, 'test.things')
    for (let i = 0; i < 200; i++) await storage.get('test.things', `k${i}`)
    await rewriteUnseen(url, 'test.things', 'k0', 'changed unseen')
    await rewriteUnseen(url, 'test.things', 'k199', 'changed unseen')
    assert.is(await storage.get('test.things', 'k199'), text, 'the last read is still kept')
    assert.is(await storage.get('test.things', 'k0'), 'changed unseen', 'the first read was dropped for room')
  } finally {
    await storage.close?.()
  }
})

test("a warm kernel's next search sees a fact another process changed", async () => {
  const url = await server.fresh()
  const storage = await postgresStorage({ url })
  const kernel = createKernel({ storage, retriever: bm25Retriever() })
  try {
    const { id } = await kernel.memory.write({
      title: 'Invoices are rendered by the billing worker',
      body: 'The first wording of the body.',
      type: 'convention',
      scope: 'project',
    })
    const first = await kernel.memory.search({ query: 'invoices billing worker' })
    assert.is(first.hits[0]?.fact.body, 'The first wording of the body.')
    const again = await kernel.memory.search({ query: 'invoices billing worker' })
    assert.is(again.hits[0]?.fact.body, 'The first wording of the body.')
    const fact = await storage.get('facts', id)
    await settled(storage)
    const heard = nextChange(storage, 'facts')
    const changed = { ...fact!, body: 'The second wording, written by another process.' }
    await runChild('writer', [url, 'put', 'facts', `${id}=${JSON.stringify(changed)}`])
    await heard
    const after = await kernel.memory.search({ query: 'invoices billing worker' })
    assert.is(after.hits[0]?.fact.body, 'The second wording, written by another process.')
  } finally {
    await kernel.close()
  }
})

test.run()
