import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { bm25Retriever, createKernel, FoundryError, memoryStorage, type FactInput, type Storage } from '../src/index.js'
import { createFactSet } from '../src/memory/fact-set.js'
import {
  membersKey,
  shardOf,
  shardOfHash,
  termHash,
  termKey,
  termsKey,
  type CatalogHead,
  type MembersChunk,
  type TermShard,
} from '../src/memory/catalog-records.js'
import { normalizeText } from '../src/memory/facts.js'
import { planWrite } from '../src/memory/plan-write.js'
import { counting, fact, input, nextNow, now, open } from './catalog-helpers.js'

/** A storage on which the fact records `broken` exist but cannot be read (a broken file). */
function withBroken(storage: Storage, broken: Set<string>): Storage {
  const corrupt = (key: string) => new FoundryError('CORRUPT', `${key} cannot be read`)
  return {
    ...storage,
    get: (async (collection: string, key: string) => {
      if (collection === 'facts' && broken.has(key)) throw corrupt(key)
      return storage.get(collection as 'facts', key)
    }) as Storage['get'],
    list: (async (collection: string, options?: Parameters<Storage['list']>[1]) => {
      const all = await storage.list(collection as 'facts', options)
      if (collection !== 'facts') return all
      for (const key of broken)
        options?.onProblem?.({ collection: 'facts', key, location: key, message: 'cannot be read' })
      return all.filter((f) => !broken.has(f.id))
    }) as Storage['list'],
  }
}

const titles = (n: number) => Array.from({ length: n }, (_, i) => `Service ${i} port is ${8000 + i}`)

test('a new process writes at 3 000 facts without reading every fact, and finds its candidates', async () => {
  const base = memoryStorage()
  for (const [i, title] of titles(3000).entries()) await base.put('facts', fact(i + 1, title).id, fact(i + 1, title))
  await open(base).memory.write(input('Logs are JSON lines')) // the first process builds the catalog (one full read)

  const { storage, counts } = counting(base)
  const k = open(storage)
  const same = await k.memory.write(input('Service 17 port is 8017'))
  assert.is(same.action, 'duplicate')
  assert.is(same.id, 'fact-0018')
  const moved = await k.memory.write(input('Service 42 port is 9042'))
  assert.is(moved.id, 'fact-3002', 'the next id after the highest')
  assert.is(moved.supersedes, 'fact-0043', 'the same statement with a new value')
  assert.is(await k.memory.activeCount(), 3001)
  assert.match(await k.memory.readIndex(), /fact-3002/)
  assert.is(counts.lists, 0, 'no full read of the facts')
})

test('the catalog kept write by write says what a full rebuild says', async () => {
  const storage = memoryStorage()
  const k = open(storage)
  for (const [i, title] of titles(120).entries())
    await k.memory.write(input(title, { confidence: (['high', 'medium', 'low'] as const)[i % 3] }))
  for (let i = 0; i < 120; i += 7) await k.memory.write(input(`Service ${i} port is ${7000 + i}`))
  await k.memory.forget('fact-0005', 'retired')
  const kept = await k.memory.readIndex()
  const active = (await k.memory.list()).length
  assert.is(await k.memory.activeCount(), active)
  const rebuilt = await open(storage).memory.index()
  assert.is(rebuilt.index.text, kept, 'INDEX.md is the same')
  assert.is(rebuilt.index.total, active)
})

test('facts written by a process without the catalog are caught up: dedupe, supersede and ids see them', async () => {
  const storage = memoryStorage()
  await open(storage).memory.write(input('Logs are JSON lines'))
  await storage.put('facts', 'fact-0002', fact(2, 'Retries are capped at 3'))
  await storage.put('facts', 'fact-0003', fact(3, 'Cache TTL is 30 seconds'))
  const k = open(storage)
  assert.is((await k.memory.write(input('Retries are capped at 3'))).action, 'duplicate')
  const next = await k.memory.write(input('Cache TTL is 60 seconds'))
  assert.equal([next.id, next.supersedes], ['fact-0004', 'fact-0003'])
  assert.is(await k.memory.activeCount(), 3)
})

test('every write plans with the catalog what it plans with every fact read into a fact set', async () => {
  const storage = memoryStorage()
  const k = open(storage)
  const subjects = ['API timeout', 'Cache TTL', 'Retry limit', 'Upload size', 'Session length', 'Pool size']
  const units = ['seconds', 'minutes', 'MB', 'requests']
  const seen = { duplicate: 0, supersedes: 0, similar: 0 }
  let last = input('Logs are JSON lines')
  for (let i = 0; i < 240; i++) {
    const subject = subjects[i % subjects.length]!
    const title =
      i % 5 === 4
        ? `${subject} for service ${i % 7} is ${(i * 13) % 50} ${units[i % 4]}`
        : `${subject} is ${(i * 7) % 40} ${units[(i >> 2) % 4]}`
    const raw =
      i % 13 === 12
        ? last
        : input(title, {
            scope: i % 3 ? 'project' : 'module:gateway',
            ...(i % 11 === 0 && { body: 'Same body for all.' }),
          })
    last = raw
    const set = createFactSet(await storage.list('facts'))
    const expected = planWrite(raw as FactInput, set, nextNow())
    const got = await k.memory.write(raw)
    assert.is(got.action, expected.action, title)
    if (expected.action === 'duplicate') assert.is(got.id, expected.existing.id), seen.duplicate++
    else {
      if (expected.superseded) seen.supersedes++
      if (expected.similar.length) seen.similar++
      assert.is(got.id, expected.fact.id, title)
      assert.is(got.supersedes, expected.superseded?.id, title)
      assert.equal(
        (got.similar ?? []).map((s) => s.id),
        expected.similar.map((s) => s.fact.id),
        title,
      )
    }
    if (i % 17 === 16) await k.memory.forget(got.id, 'retired').catch(() => {})
  }
  assert.ok(seen.duplicate && seen.supersedes && seen.similar, JSON.stringify(seen))
})

for (const [what, damage] of [
  ['deleted head', (s: Storage) => s.delete('meta', 'catalog/head')],
  ['corrupt head', (s: Storage) => s.put('meta', 'catalog/head', '{"format":1,')],
  [
    'deleted term shard',
    async (s: Storage) => Promise.all((await s.keys('meta', 'catalog/terms/')).map((key) => s.delete('meta', key))),
  ],
  [
    'corrupt term shard',
    async (s: Storage) =>
      Promise.all((await s.keys('meta', 'catalog/terms/')).map((key) => s.put('meta', key, 'not json'))),
  ],
  [
    'stale members chunk',
    async (s: Storage) =>
      Promise.all(
        (await s.keys('meta', 'catalog/members/')).map((key) => s.put('meta', key, '{"seq":1,"members":{}}')),
      ),
  ],
] as const) {
  test(`a ${what} is rebuilt from one full read`, async () => {
    const base = memoryStorage()
    const first = open(base)
    for (const title of titles(5)) await first.memory.write(input(title))
    await damage(base)
    const { storage, counts } = counting(base)
    const k = open(storage)
    assert.is((await k.memory.write(input('Service 3 port is 8003'))).id, 'fact-0004', 'a duplicate found')
    const next = await k.memory.write(input('Service 2 port is 9002'))
    assert.equal([next.id, next.supersedes], ['fact-0006', 'fact-0003'])
    assert.is(await k.memory.activeCount(), 5)
    assert.is(counts.lists, 1, 'rebuilt once, then kept')
  })
}

test("a server's warm rebuilds a stale catalog and the retriever, one after the other; its first write then reads no fact in full", async () => {
  const base = memoryStorage()
  const first = open(base)
  for (const title of titles(5)) await first.memory.write(input(title))
  await base.delete('meta', 'catalog/head') // as a copy or a restore leaves it: the catalog does not describe the facts
  const { storage, counts } = counting(base)
  const k = open(storage)
  await k.memory.warm()
  assert.is(counts.lists, 2, 'the catalog and the retriever, each from one full read')
  const next = await k.memory.write(input('Service 2 port is 9002'))
  assert.equal([next.id, next.supersedes], ['fact-0006', 'fact-0003'])
  assert.is((await k.memory.search({ query: 'Service 2 port' })).hits[0]?.fact.id, 'fact-0006')
  assert.is(counts.lists, 2, 'the write and the search found both current')
})

test("warm('search') leaves a first search nothing to read in full: the catalog and the retriever are current", async () => {
  const base = memoryStorage()
  const first = open(base)
  for (const title of titles(5)) await first.memory.write(input(title))
  await base.delete('meta', 'catalog/head')
  const { storage, counts } = counting(base)
  const bm25 = bm25Retriever()
  const warmed: unknown[] = []
  const retriever = { ...bm25, warm: (options?: { postings?: boolean }) => (warmed.push(options), bm25.warm!(options)) }
  const k = createKernel({ storage, retriever, now, onProblem: () => {} })
  await k.memory.warm('search')
  assert.is(counts.lists, 2, 'the catalog and the retriever, each from one full read')
  assert.equal(warmed, [{ postings: false }], 'the retriever warmed without its postings')
  assert.is((await k.memory.search({ query: 'Service 2 port' })).hits[0]?.fact.id, 'fact-0003')
  assert.is(counts.lists, 2, 'the search read nothing in full')
  await k.memory.warm()
  assert.equal(warmed, [{ postings: false }, { postings: true }], 'a whole warm-up reads them')
})

/** A catalog's shards and memberships as stored, whatever their order: term hash → ids, id → shards. */
async function storedCatalog(storage: Storage) {
  const head = JSON.parse((await storage.get('meta', 'catalog/head'))!) as CatalogHead
  const terms: [string, string[]][] = []
  for (let b = 0; b < head.shards; b++) {
    if (!head.terms[b]) continue // never written at this count: empty
    const shard = JSON.parse((await storage.get('meta', termsKey(b)))!) as TermShard
    for (const [hash, ids] of Object.entries(shard.terms)) terms.push([hash, [...ids].sort()])
  }
  const members: [string, number[]][] = []
  for (const c of Object.keys(head.members)) {
    const chunk = JSON.parse((await storage.get('meta', membersKey(Number(c))))!) as MembersChunk
    for (const [id, shards] of Object.entries(chunk.members)) members.push([id, [...shards].sort((a, b) => a - b)])
  }
  return { shards: head.shards, active: head.active, terms: terms.sort(), members: members.sort() }
}

test('a catalog built small is split into more shards once the memory has grown, without reading a fact', async () => {
  const base = memoryStorage()
  await open(base).memory.write(input('Logs are JSON lines'))
  const shards = async () => (JSON.parse((await base.get('meta', 'catalog/head'))!) as { shards: number }).shards
  assert.is(await shards(), 16)
  for (const [i, title] of titles(2100).entries()) await base.put('facts', fact(i + 2, title).id, fact(i + 2, title))
  const { storage, counts } = counting(base)
  const k = open(storage)
  assert.is(
    (await k.memory.write(input('Service 7 port is 8007'))).action,
    'duplicate',
    'caught up: 2 101 facts in 16 shards',
  )
  assert.is((await k.memory.write(input('Tabs are two spaces'))).id, 'fact-2102')
  assert.is(await shards(), 512, 'past 32 facts a shard: split into shards of about 8')
  assert.is(counts.lists, 0, 'no full read')
  assert.is(
    (await k.memory.write(input('Service 9 port is 8009'))).id,
    'fact-0011',
    'a duplicate found in the new shards',
  )
  // The same facts, their catalog built from a full read: the split one says the same.
  const rebuilt = memoryStorage()
  for (const f of await base.list('facts')) await rebuilt.put('facts', f.id, f)
  assert.is((await open(rebuilt).memory.write(input('Service 9 port is 8009'))).action, 'duplicate')
  const split = await storedCatalog(base)
  assert.ok(split.terms.length > 2000 && split.members.length === 2102)
  assert.equal(split, await storedCatalog(rebuilt))
})

test('a grown catalog the storage cannot say the changes of is built from one full read, not split first', async () => {
  const base = memoryStorage()
  await open(base).memory.write(input('Logs are JSON lines'))
  for (const [i, title] of titles(600).entries()) await base.put('facts', fact(i + 2, title).id, fact(i + 2, title))
  await open(base).memory.write(input('Service 7 port is 8007')) // caught up: 601 facts in 16 shards
  await base.put('facts', 'fact-0700', fact(700, 'Tabs are two spaces'))
  // A copy, say: the revision moved and no change log spans it.
  let shardReads = 0
  const { storage, counts } = counting({
    ...base,
    changes: async () => undefined,
    get: ((collection: 'meta', key: string) => {
      if (collection === 'meta' && key.startsWith('catalog/terms/')) shardReads++
      return base.get(collection, key)
    }) as Storage['get'],
  })
  assert.is((await open(storage).memory.write(input('Tabs are two spaces'))).action, 'duplicate')
  assert.is(counts.lists, 1, 'one full read')
  assert.is(shardReads, 0, 'no shard of the old catalog read')
  assert.is(JSON.parse((await base.get('meta', 'catalog/head'))!).shards, 128)
})

test('a full read of the facts lets timers run between its pages (a server answers meanwhile)', async () => {
  const storage = memoryStorage() // its reads resolve at once: only a timer between pages lets another one fire
  for (const [i, title] of titles(600).entries()) await storage.put('facts', fact(i + 1, title).id, fact(i + 1, title))
  const order: string[] = []
  setTimeout(() => order.push('a timer set before'), 0)
  await open(storage).memory.warm()
  order.push('the catalog and the retriever built')
  assert.equal(order, ['a timer set before', 'the catalog and the retriever built'])
})

test("a term's shard is the same from its stored hash as from its text", () => {
  for (const [i, title] of titles(300).entries()) {
    const term = termKey({ type: 'decision', scope: i % 2 ? 'project' : 'module:a' }, `t${normalizeText(title)}`)
    for (const shards of [1, 3, 16, 1000, 1024, 8192])
      assert.is(shardOfHash(termHash(term), shards), shardOf(term, shards))
  }
})

test('a crash between the two writes of a supersede is repaired by the next process', async () => {
  const storage = memoryStorage()
  await open(storage).memory.write(input('API timeout is 30 seconds'))
  // A writer that died after storing its fact and before marking the one it supersedes.
  await storage.put('facts', 'fact-0002', fact(2, 'API timeout is 60 seconds', { supersedes: 'fact-0001' }))
  const k = open(storage)
  await k.memory.write(input('Logs are JSON lines'))
  assert.equal((await storage.get('facts', 'fact-0001'))?.status, 'superseded')
  assert.equal((await storage.get('facts', 'fact-0001'))?.supersededBy, 'fact-0002')
  assert.is(await k.memory.activeCount(), 2)
  assert.not.match(await k.memory.readIndex(), /fact-0001/)
})

test('a crash repair is seen by get and the count before any write', async () => {
  const storage = memoryStorage()
  await open(storage).memory.write(input('API timeout is 30 seconds'))
  await storage.put('facts', 'fact-0002', fact(2, 'API timeout is 60 seconds', { supersedes: 'fact-0001' }))
  const k = open(storage)
  assert.is(await k.memory.activeCount(), 1)
  assert.is((await k.memory.get('fact-0001')).status, 'superseded')
})

test('ids stay gapless and a record that cannot be read keeps its id, in a rebuild and in a catch-up', async () => {
  const base = memoryStorage()
  const first = open(base)
  for (const title of titles(4)) await first.memory.write(input(title))
  const broken = new Set(['fact-0004'])
  await base.delete('meta', 'catalog/head') // rebuilt: fact-0004 is held
  const k = open(withBroken(base, broken))
  assert.is((await k.memory.write(input('Logs are JSON lines'))).id, 'fact-0005')
  assert.is((await base.get('facts', 'fact-0004'))?.title, 'Service 3 port is 8003', 'never overwritten')
  // Caught up: a record another process wrote, unreadable here.
  await base.put('facts', 'fact-0006', fact(6, 'Written elsewhere'))
  broken.add('fact-0006')
  assert.is((await k.memory.write(input('Tabs are two spaces'))).id, 'fact-0007')
  assert.is((await base.get('facts', 'fact-0006'))?.title, 'Written elsewhere')
  // A deleted highest fact frees its id, as before (gapless).
  await base.delete('facts', 'fact-0007')
  assert.is((await k.memory.write(input('Commits are signed'))).id, 'fact-0007')
})

test('a shard keeps a hash of each term, and a fact listed under a term it does not hold is no candidate', async () => {
  const storage = memoryStorage()
  const k = open(storage)
  await k.memory.write(input('Logs are JSON lines', { body: 'Same body.' }))
  const head = JSON.parse((await storage.get('meta', 'catalog/head'))!) as CatalogHead
  // fact-0001 listed (as a hash collision would list it) under the title term of another title with the same body.
  const term = termKey({ type: 'convention', scope: 'project' }, `t${normalizeText('Tabs are two spaces')}`)
  const key = termsKey(shardOf(term, head.shards))
  const shard = JSON.parse((await storage.get('meta', key)) ?? '{"terms":{}}') as TermShard
  assert.not.ok(
    Object.keys(shard.terms).some((t) => t.includes('logs')),
    'no term text in a shard',
  )
  shard.terms[termHash(term)] = ['fact-0001']
  shard.seq = head.seq
  await storage.put('meta', key, JSON.stringify(shard))
  head.terms[shardOf(term, head.shards)] = head.seq - head.base
  await storage.put('meta', 'catalog/head', JSON.stringify(head))
  const written = await open(storage).memory.write(input('Tabs are two spaces', { body: 'Same body.' }))
  assert.equal([written.action, written.id], ['created', 'fact-0002'])
})

test.run()
