import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { RecordCache } from '../src/memory/catalog-store.js'

const record = (seq: number) => ({ seq })

test('RecordCache: a record is reused only under the stamp it was kept with', () => {
  const cache = new RecordCache()
  const kept = record(3)
  cache.set('catalog/terms/001', 3, kept, 100)
  assert.is(cache.get('catalog/terms/001', 3), kept)
  assert.is(cache.get('catalog/terms/001', 4), undefined, 'a newer stamp is another record: read again')
  assert.is(cache.get('catalog/terms/002', 3), undefined)
  cache.delete('catalog/terms/001')
  assert.is(cache.get('catalog/terms/001', 3), undefined)
})

test('RecordCache: bounded by count, the first kept dropped first', () => {
  const cache = new RecordCache(3, 1 << 20)
  for (const key of ['a', 'b', 'c', 'd']) cache.set(key, 1, record(1), 10)
  assert.is(cache.size, 3)
  assert.is(cache.get('a', 1), undefined)
  assert.ok(cache.get('d', 1))
  // Kept again, a record is the newest: the next one drops the one kept before it.
  cache.set('b', 2, record(2), 10)
  cache.set('e', 1, record(1), 10)
  assert.is(cache.get('c', 1), undefined)
  assert.ok(cache.get('b', 2))
})

test('RecordCache: bounded by the length of the records’ text, so large records are kept fewer', () => {
  const cache = new RecordCache(192, 1000)
  for (let i = 0; i < 50; i++) cache.set(`small-${i}`, 1, record(1), 10)
  assert.is(cache.size, 50, 'small records: the count is the bound')
  for (let i = 0; i < 10; i++) cache.set(`large-${i}`, 1, record(1), 300)
  assert.is(cache.size, 3, 'records of 300 characters: three fit in 1000')
  assert.ok(cache.get('large-9', 1))
  // One record over the bound alone is still kept (its draft uses it), and replaced by the next.
  cache.set('huge', 1, record(1), 5000)
  assert.is(cache.size, 1)
  assert.ok(cache.get('huge', 1))
  cache.set('after', 1, record(1), 10)
  assert.is(cache.get('huge', 1), undefined)
  assert.ok(cache.get('after', 1))
  // Deleting and clearing give the room back.
  cache.clear()
  for (let i = 0; i < 100; i++) cache.set(`again-${i}`, 1, record(1), 10)
  assert.is(cache.size, 100)
})

test.run()
