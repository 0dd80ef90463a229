import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { isFoundryError, memoryStorage, type Storage } from '../src/index.js'
import { counting, fact, input, open } from './catalog-helpers.js'

test("a new process's first batch writes at 3 000 facts without reading every fact", async () => {
  const base = memoryStorage()
  for (let i = 1; i <= 3000; i++)
    await base.put(
      'facts',
      fact(i, `Service ${i - 1} port is ${7999 + i}`).id,
      fact(i, `Service ${i - 1} port is ${7999 + i}`),
    )
  await open(base).memory.write(input('Logs are JSON lines')) // the first process builds the catalog (one full read)

  const { storage, counts } = counting(base)
  const k = open(storage)
  const batch = await k.memory.writeMany([
    input('Service 17 port is 8017'),
    input('Service 42 port is 9042'),
    input('Service 42 port is 9100'),
    input('Metrics are scraped every minute'),
  ])
  assert.equal(
    batch.results.map((r) => [r.action, r.id, r.supersedes]),
    [
      ['duplicate', 'fact-0018', undefined],
      ['created', 'fact-3002', 'fact-0043'],
      ['created', 'fact-3003', 'fact-3002'],
      ['created', 'fact-3004', undefined],
    ],
  )
  assert.is(counts.lists, 0, 'no full read of the facts')
  assert.is(await k.memory.activeCount(), 3002, '3 001, one superseded twice, one new')
  assert.match(await k.memory.readIndex(), /fact-3004/)
  assert.is(counts.lists, 0, 'the index the batch saved is served as stored')
})

/** Inputs with duplicates, supersedes and similar facts, each within the batch and across batches. */
function inputs(n: number) {
  const subjects = ['API timeout', 'Cache TTL', 'Retry limit', 'Upload size', 'Session length']
  const units = ['seconds', 'minutes', 'MB']
  const out: Array<ReturnType<typeof input>> = []
  for (let i = 0; i < n; i++) {
    const subject = subjects[i % subjects.length]!
    const title =
      i % 4 === 3
        ? `${subject} for service ${i % 3} is ${(i * 13) % 30} ${units[i % 3]}`
        : `${subject} is ${(i * 7) % 20} ${units[(i >> 2) % 3]}`
    out.push(i % 9 === 8 ? out[i - 3]! : input(title, { scope: i % 3 ? 'project' : 'module:gateway' }))
  }
  return out
}

test('a batch plans through the catalog what the same facts written one by one plan', async () => {
  const all = inputs(120)
  const batched = open(memoryStorage())
  const single = open(memoryStorage())
  const seen = { duplicate: 0, supersedes: 0, similar: 0 }
  for (let at = 0; at < all.length; at += 30) {
    const { results } = await batched.memory.writeMany(all.slice(at, at + 30))
    for (const [i, got] of results.entries()) {
      const expected = await single.memory.write(all[at + i])
      const what = all[at + i]!.title
      assert.equal([got.action, got.id, got.supersedes], [expected.action, expected.id, expected.supersedes], what)
      assert.equal(
        (got.similar ?? []).map((s) => s.id),
        (expected.similar ?? []).map((s) => s.id),
        what,
      )
      if (got.action === 'duplicate') seen.duplicate++
      if (got.supersedes) seen.supersedes++
      if (got.similar?.length) seen.similar++
    }
  }
  assert.ok(seen.duplicate && seen.supersedes && seen.similar, JSON.stringify(seen))
  assert.is(await batched.memory.activeCount(), await single.memory.activeCount())
  assert.is(await batched.memory.readIndex(), await single.memory.readIndex())
})

test('a batch refused after it staged facts in the catalog leaves nothing of them (discard)', async () => {
  const storage = memoryStorage()
  const k = open(storage)
  await k.memory.write(input('Logs are JSON lines'))
  const refused = await k.memory
    .writeMany([input('Queues are drained nightly'), input('Builds run on Node 20', { supersedes: 'fact-0099' })])
    .catch((error: unknown) => error)
  assert.ok(
    isFoundryError(refused) && refused.code === 'INVALID_INPUT' && refused.message.startsWith('facts[1]:'),
    String(refused),
  )
  assert.equal(await storage.keys('facts'), ['fact-0001'], 'nothing stored')
  const again = await k.memory.write(input('Queues are drained nightly'))
  assert.equal(
    [again.action, again.id],
    ['created', 'fact-0002'],
    'not a duplicate of the staged fact, and its id was not taken',
  )
  assert.is(await k.memory.activeCount(), 2)
  assert.is(await open(storage).memory.activeCount(), 2, 'a new process reads the same catalog')
})

test('a batch whose storage fails leaves the catalog as it was, and the next write stores the facts', async () => {
  const base = memoryStorage()
  let fail = true
  const storage: Storage = {
    ...base,
    putMany: async (collection, entries, options) => {
      if (fail && collection === 'facts') throw new Error('disk full')
      return base.putMany(collection, entries, options)
    },
  }
  const k = open(storage)
  await k.memory.write(input('Logs are JSON lines'))
  const failed = await k.memory
    .writeMany([
      input('Queues are drained nightly'),
      input('Logs are JSON lines with a trace id', { supersedes: 'fact-0001' }),
    ])
    .catch((error: Error) => error)
  assert.match(String(failed), /disk full/)
  fail = false
  const { results } = await k.memory.writeMany([
    input('Queues are drained nightly'),
    input('Logs are JSON lines with a trace id', { supersedes: 'fact-0001' }),
  ])
  assert.equal(
    results.map((r) => [r.action, r.id, r.supersedes]),
    [
      ['created', 'fact-0002', undefined],
      ['created', 'fact-0003', 'fact-0001'],
    ],
  )
  assert.is(await k.memory.activeCount(), 2)
})

test("INDEX.md saved by a batch is relaxed, and rebuilt when the catalog head's checksum does not describe it", async () => {
  const storage = memoryStorage()
  const k = open(storage)
  await k.memory.writeMany([input('Logs are JSON lines'), input('Queues are drained nightly')])
  const older = (await storage.get('meta', 'index'))!
  await k.memory.writeMany([input('Builds run on Node 20')])
  const current = await k.memory.readIndex()
  assert.match(current, /fact-0003/)
  const head = JSON.parse((await storage.get('meta', 'catalog/head'))!) as { indexSum: string }
  assert.ok(head.indexSum, 'the head names the index it was saved with')
  await storage.put('meta', 'index', older, { durability: 'relaxed' }) // a power cut rolled INDEX.md back, not the head
  assert.is(await open(storage).memory.readIndex(), current, 'rebuilt by a new process, not the rolled-back text')
  assert.is(await storage.get('meta', 'index'), current, 'and stored again')
})

test.run()
