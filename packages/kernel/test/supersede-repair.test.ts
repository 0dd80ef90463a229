import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel, memoryStorage, type Fact, type Storage } from '../src/index.js'

const now = () => new Date('2026-11-30T12:00:00Z')
const fact = (n: number, title: string, extra: Partial<Fact> = {}): Fact => ({
  id: `fact-${String(n).padStart(4, '0')}`,
  title,
  body: 'Set in the gateway.',
  type: 'convention',
  scope: 'project',
  tags: [],
  confidence: 'medium',
  source: 'conversation',
  created: `2026-11-0${n}T00:00:00.000Z`,
  status: 'active',
  ...extra,
})

/** What a writer that died between its two puts leaves: the new fact stored, the old one still active. */
async function crashedWrite(storage: Storage) {
  await storage.put('facts', 'fact-0001', fact(1, 'API timeout is 30 seconds'))
  await storage.put('facts', 'fact-0002', fact(2, 'API timeout is 60 seconds', { supersedes: 'fact-0001' }))
}

test('a write interrupted between its two puts never leaves both facts active: the fact set repairs it', async () => {
  const storage = memoryStorage()
  await crashedWrite(storage)
  const k = createKernel({ storage, now })
  assert.equal(
    (await k.memory.list()).map((f) => f.id),
    ['fact-0002'],
    'only the newer is active',
  )
  assert.equal(
    (await k.memory.list({ status: 'superseded' })).map((f) => [f.id, f.supersededBy]),
    [['fact-0001', 'fact-0002']],
  )
  assert.equal(
    (await k.memory.search({ query: 'API timeout' })).hits.map((h) => h.fact.id),
    ['fact-0002'],
    'search agrees',
  )
  assert.not.match(await k.memory.readIndex(), /fact-0001/, 'the index agrees')
  assert.is((await k.memory.get('fact-0001')).status, 'superseded', 'lookup agrees')
  assert.is(await k.memory.activeCount(), 1)
})

test('the retriever, kept in step change by change, drops the fact the crashed write superseded', async () => {
  const storage = memoryStorage()
  await storage.put('facts', 'fact-0001', fact(1, 'API timeout is 30 seconds'))
  const k = createKernel({ storage, now })
  assert.is((await k.memory.search({ query: 'API timeout' })).hits.length, 1, 'the retriever holds fact-0001')
  await storage.put('facts', 'fact-0002', fact(2, 'API timeout is 60 seconds', { supersedes: 'fact-0001' }))
  assert.equal(
    (await k.memory.search({ query: 'API timeout' })).hits.map((h) => h.fact.id),
    ['fact-0002'],
  )
})

test('the next write stores the repair, so storage itself is consistent again', async () => {
  const storage = memoryStorage()
  await crashedWrite(storage)
  const k = createKernel({ storage, now })
  await k.memory.write({ title: 'Logs are structured JSON', body: 'One object per line.', type: 'convention' })
  const old = await storage.get('facts', 'fact-0001')
  assert.is(old?.status, 'superseded')
  assert.is(old?.supersededBy, 'fact-0002')
  // The catalog is rebuilt from facts read without their bodies: the repair it stores is the whole fact.
  assert.equal(old, { ...fact(1, 'API timeout is 30 seconds'), status: 'superseded', supersededBy: 'fact-0002' })
})

test('hand-edited supersedes that name the fact itself, or an older fact, repair nothing and never loop', async () => {
  const storage = memoryStorage()
  await storage.put('facts', 'fact-0001', fact(1, 'Names itself', { supersedes: 'fact-0001' }))
  await storage.put('facts', 'fact-0002', fact(2, 'Claims the first', { supersedes: 'fact-0001' }))
  await storage.put('facts', 'fact-0003', fact(3, 'Claims a newer one', { supersedes: 'fact-0004' }))
  await storage.put('facts', 'fact-0004', fact(4, 'Claims the older one back', { supersedes: 'fact-0003' }))
  const k = createKernel({ storage, now })
  assert.equal(
    (await k.memory.list()).map((f) => f.id),
    ['fact-0002', 'fact-0004'],
    'the newer claim wins; no cycle',
  )
  assert.equal(
    (await k.memory.search({ query: 'Claims' })).hits.map((h) => h.fact.id).sort(),
    ['fact-0002', 'fact-0004'],
    'search agrees',
  )
  // The same rule when the retriever is kept in step change by change: a fact naming itself stays found.
  await storage.put('facts', 'fact-0005', fact(5, 'Renames itself', { supersedes: 'fact-0005' }))
  assert.equal(
    (await k.memory.search({ query: 'Renames itself' })).hits.map((h) => h.fact.id),
    ['fact-0005'],
  )
})

test.run()
