import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  bm25Retriever,
  buildIndex,
  createKernel,
  dayOf,
  factId,
  type Retriever,
  type StorageProblem,
} from '@foundry/kernel'
import type { RetrievalChanges } from '@foundry/kernel/adapter'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { runFixture, sleep, tempRoot, walk } from './helpers.js'

test('8 processes × 100 memory writes into one folder: 800 facts, gapless ids, a consistent index and event log', async () => {
  const root = tempRoot()
  const workers = Array.from({ length: 8 }, (_, k) => runFixture('writer', [root, String(k), '100']))
  const results = await Promise.all(workers.map((w) => w.done))
  for (const [k, r] of results.entries()) assert.is(r.code, 0, `worker ${k} failed: ${r.stderr}`)

  const storage = fsStorage({ root })
  const problems: StorageProblem[] = []
  const facts = await storage.list('facts', { onProblem: (p) => problems.push(p) })
  assert.equal(problems, [])
  assert.is(facts.length, 800)
  assert.equal(
    new Set(facts.map((f) => f.id)),
    new Set(Array.from({ length: 800 }, (_, i) => factId(i + 1))),
    'fact-0001…fact-0800, no gap, no duplicate',
  )
  assert.is(new Set(facts.map((f) => f.title)).size, 800, 'every write is a distinct fact')
  assert.ok(facts.every((f) => f.status === 'active'))

  const index = readFileSync(join(root, '.foundry', 'memory', 'INDEX.md'), 'utf8')
  const expected = buildIndex(facts, 4000, dayOf(new Date()))
  assert.is(index, expected.text, 'INDEX.md is the index of all 800 facts')
  assert.is(expected.listed + expected.omitted, 800)
  assert.is(index.split('\n').filter((line) => line.startsWith('- fact-')).length, expected.listed)

  const events = readFileSync(join(root, '.foundry', 'metrics', 'events.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line))
  const writes = events.filter((e) => e.kind === 'memory_write')
  assert.is(writes.length, 800, 'one well-formed memory_write line a write')
  assert.ok(writes.every((e) => e.data.action === 'created'))
  assert.is(new Set(writes.map((e) => e.data.id)).size, 800)

  const leftovers = walk(join(root, '.foundry')).filter((p) => p.endsWith('.tmp') || p.includes('write.lock'))
  assert.equal(leftovers, [], 'no temporary file or lock left behind')
})

test('a writer killed (SIGKILL) at random moments leaves no half-written file, and the next write gets through', async () => {
  const root = tempRoot()
  for (let round = 1; round <= 4; round++) {
    const child = runFixture('churn', [root, String(round)])
    await child.printed('ready')
    await sleep(50 + Math.random() * 400)
    child.kill('SIGKILL')
    assert.is((await child.done).code, 'SIGKILL')
  }
  const storage = fsStorage({ root, lock: { stale: 2000, timeout: 10_000 } })
  const problems: StorageProblem[] = []
  for (const collection of ['facts', 'artifacts', 'meta'] as const)
    await storage.list(collection, { onProblem: (p) => problems.push(p) })
  assert.equal(problems, [], 'every record reads back')
  const blob = await storage.get('meta', 'churn/blob')
  assert.is(blob?.length, 3_000_000, 'the large blob is whole: the old one or the new one')
  assert.match(blob!, /^\d+:/)
  const artifact = await storage.get('artifacts', 'churn/big')
  assert.is((artifact?.data.payload as string).length, 1_000_000)

  // The last child may have died holding the lock: its holder is gone, so a new writer breaks it and writes.
  const kernel = createKernel({ storage })
  const written = await kernel.memory.write({
    title: 'Writes survive crashed writers',
    body: 'A killed writer leaves no partial file.',
    type: 'domain',
  })
  assert.is(written.action, 'created')
  await kernel.close()

  // What the killed writers left mid-write is swept by the next listing.
  const temps = () => walk(join(root, '.foundry')).filter((p) => p.endsWith('.tmp'))
  const sweeper = fsStorage({ root })
  for (const collection of ['facts', 'artifacts', 'meta'] as const) await sweeper.list(collection)
  assert.equal(temps(), [], 'temporary files swept')
})

/** The default retriever, counting what the kernel asks it to apply. */
function countingRetriever(): Retriever & { applied: RetrievalChanges[] } {
  const inner = bm25Retriever()
  const applied: RetrievalChanges[] = []
  return { ...inner, applied, apply: (changes) => (applied.push(changes), inner.apply(changes)) }
}

test('a fresh process searches from the stored snapshot: nothing re-indexed, only later writes applied', async () => {
  const root = tempRoot()
  const seeded = await runFixture('seed', [root, '0', '40', 'search']).done
  assert.is(seeded.code, 0, seeded.stderr)

  const retriever = countingRetriever()
  const kernel = createKernel({ storage: fsStorage({ root }), retriever })
  const found = await kernel.memory.search({ query: 'refunds cents' })
  assert.ok(found.hits.length > 0 && found.hits[0]!.fact.title.includes('refunds'), found.text)
  assert.equal(retriever.applied, [], 'the snapshot was current: nothing applied')
  await kernel.close()

  // Another process writes three facts and does not search: the next fresh process applies just those.
  const more = await runFixture('seed', [root, '40', '3']).done
  assert.is(more.code, 0, more.stderr)
  const next = countingRetriever()
  const fresh = createKernel({ storage: fsStorage({ root }), retriever: next })
  const hits = await fresh.memory.search({ query: 'module 41' })
  assert.ok(hits.hits.length > 0)
  assert.is(next.applied.length, 1)
  assert.not.ok(next.applied[0]!.reset, 'no full re-index')
  assert.equal(next.applied[0]!.upsert.map((d) => d.id).sort(), ['fact-0041', 'fact-0042', 'fact-0043'])
  await fresh.close()
})

test.run()
