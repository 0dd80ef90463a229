import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { WriteOptions } from '../src/storage.js'
import { decision, kernelFor } from './helpers.js'

test('INDEX.md is written relaxed (derived), and an index the catalog head does not describe is rebuilt by readIndex', async () => {
  const k = kernelFor()
  const puts: Array<[string, WriteOptions | undefined]> = []
  const put = k.storage.put.bind(k.storage)
  k.storage.put = async (collection, key, value, options) => (
    puts.push([`${collection}/${key}`, options]), put(collection, key, value, options)
  )
  await k.memory.write(decision('Persistence layer uses Flyway'))
  const older = (await k.storage.get('meta', 'index'))!
  await k.memory.write(decision('Billing runs on Postgres 16'))
  assert.equal(puts.find(([where]) => where === 'meta/index')?.[1], { durability: 'relaxed' }, 'the index is relaxed')
  assert.is(puts.find(([where]) => where === 'facts/fact-0001')?.[1], undefined, 'a fact is durable (the default)')
  const current = await k.memory.readIndex()
  assert.ok(current.includes('fact-0002'), 'the index as stored lists both')
  // A power cut rolled INDEX.md back, not the catalog head written after it: the head no longer describes it.
  await put('meta', 'index', older, { durability: 'relaxed' })
  assert.is(await k.memory.readIndex(), current, 'rebuilt, not the rolled-back text')
  assert.is(await k.storage.get('meta', 'index'), current, 'and stored again')
})

test.run()
