import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { memoryStorage, type Storage } from '../src/index.js'
import { counting, fact, input, open } from './catalog-helpers.js'

test('a page of the active facts comes from the catalog: the first facts by id and the total, no full read', async () => {
  const base = memoryStorage()
  for (let i = 1; i <= 300; i++)
    await base.put('facts', fact(i, `Service ${i} port is ${8000 + i}`).id, fact(i, `Service ${i} port is ${8000 + i}`))
  await base.put('facts', 'fact-0005', fact(5, 'Service 5 port is 8005', { status: 'forgotten' }))
  await base.put('facts', 'fact-0007', fact(7, 'Service 7 port is 8007', { expires: '2020-01-01' }))
  const writer = open(base)
  await writer.memory.write(input('Logs are JSON lines')) // builds the catalog (one full read)
  const whole = await writer.memory.list()

  const { storage, counts } = counting(base)
  const k = open(storage)
  const page = await k.memory.page({ limit: 10 })
  assert.is(counts.lists, 0, 'no full read of the facts')
  assert.is(page.total, whole.length, 'the total is what list returns')
  assert.equal(page.facts, whole.slice(0, 10), 'the first facts list returns, in id order')
  assert.ok(
    !page.facts.some((f) => f.id === 'fact-0005' || f.id === 'fact-0007'),
    'neither forgotten nor expired facts',
  )
  assert.equal((await k.memory.page({ limit: 1000 })).facts, whole, 'a page past the end is the whole list')
  const newest = await k.memory.page({ limit: 10, newest: true })
  assert.is(counts.lists, 0, 'the newest page reads no more than the first')
  assert.equal(newest.facts, whole.slice(-10).reverse(), 'newest: the last facts list returns, newest first')
  assert.is(newest.total, whole.length)
})

test('a page reads only the members chunks it falls in: the first for the oldest, the last for the newest', async () => {
  const base = memoryStorage()
  for (let i = 1; i <= 600; i++)
    await base.put('facts', fact(i, `Host ${i} runs on rack ${i}`).id, fact(i, `Host ${i} runs on rack ${i}`))
  const writer = open(base)
  await writer.memory.write(input('Racks are numbered from one'))
  const whole = await writer.memory.list()
  const chunks: string[] = []
  const storage: Storage = {
    ...base,
    get: ((collection, key) => {
      if (collection === 'meta' && key.startsWith('catalog/members/')) chunks.push(key)
      return base.get(collection, key)
    }) as Storage['get'],
  }
  const k = open(storage)
  const first = await k.memory.page({ limit: 10 })
  assert.equal(first.facts, whole.slice(0, 10))
  assert.is(first.total, whole.length)
  assert.equal(chunks, ['catalog/members/0'], 'the first page: the first chunk alone')
  chunks.length = 0
  const newest = await k.memory.page({ limit: 10, newest: true })
  assert.equal(newest.facts, whole.slice(-10).reverse())
  assert.equal(chunks, ['catalog/members/2'], 'the newest page: the last chunk alone')
  chunks.length = 0
  const across = await k.memory.page({ limit: 300 })
  assert.equal(across.facts, whole.slice(0, 300), 'a page across two chunks')
  assert.equal(chunks, ['catalog/members/0', 'catalog/members/1'])
})

test('a page with a type or another status reads the facts as list does', async () => {
  const base = memoryStorage()
  const k = open(base)
  for (let i = 1; i <= 5; i++)
    await k.memory.write(input(`Queue ${i} is durable`, { type: i % 2 ? 'convention' : 'glossary' }))
  const page = await k.memory.page({ type: 'glossary', limit: 1 })
  assert.equal(page.facts, (await k.memory.list({ type: 'glossary' })).slice(0, 1))
  assert.is(page.total, 2)
  assert.equal(await k.memory.page({ status: 'forgotten', limit: 3 }), { facts: [], total: 0 })
  const newest = await k.memory.page({ type: 'convention', limit: 2, newest: true })
  assert.equal(newest.facts, (await k.memory.list({ type: 'convention' })).slice(-2).reverse())
  assert.is(newest.total, 3)
  assert.equal((await k.memory.page({ type: 'convention', limit: 0, newest: true })).facts, [], 'limit 0: no facts')
})

test.run()
