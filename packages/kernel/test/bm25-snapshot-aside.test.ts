import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { bm25Retriever } from '../src/index.js'
import type { RetrievalDoc, RetrievalQuery, SnapshotStore } from '../src/retrieval.js'
import { memorySnapshotStore } from '../src/testing/index.js'

const WORDS = ['amber', 'basalt', 'cobalt', 'dune', 'ember', 'fjord', 'glacier', 'harbor', 'inlet', 'jasper', 'kelp']
const docOf = (i: number): RetrievalDoc => ({
  id: `fact-${String(i).padStart(4, '0')}`,
  title: `${WORDS[i % WORDS.length]} ${WORDS[(i * 3) % WORDS.length]}`,
  body: `note ${i} about ${WORDS[(i * 7) % WORDS.length]} and ${WORDS[(i * 5) % WORDS.length]} ${i % 4 ? 'tide' : 'storm'}`,
  tags: [],
  type: i % 2 ? 'decision' : 'domain',
  scope: 'project',
})
const queries = ['amber tide', 'cobalt storm', 'harbor', 'glac', 'jaspr kelp', 'note ember']

/** A store whose writes of postings blocks wait until `release()` once `hold()` is called; `held` resolves at the first held write. */
function heldStore() {
  const store = memorySnapshotStore()
  let holding = false
  let release = () => {}
  const gate = new Promise<void>((resolve) => (release = resolve))
  let reached = () => {}
  const held = new Promise<void>((resolve) => (reached = resolve))
  const wrapped: SnapshotStore & { names(): string[] } = {
    ...store,
    async write(name, text) {
      if (holding && /\/postings-\d+$/.test(name)) {
        reached()
        await gate
      }
      return store.write(name, text)
    },
  }
  return { store: wrapped, held, hold: () => (holding = true), release: () => release() }
}

test('bm25Retriever: a due snapshot is written beside searches (they answer while it is held), a write waits for it, and the new build gives the same hits', async () => {
  const { store, held, hold, release } = heldStore()
  const first = Array.from({ length: 600 }, (_, i) => docOf(i))
  const later = Array.from({ length: 40 }, (_, i) => docOf(600 + i))
  const r = bm25Retriever({ snapshotEvery: 30, idleMs: 5 })
  r.attach!(store)
  await r.apply({ revision: '1', reset: true, upsert: first, remove: [] })
  const before = store.names().find((n) => n.endsWith('/docs'))!
  const reference = bm25Retriever()
  await reference.apply({ revision: '1', reset: true, upsert: first, remove: [] })
  hold()
  await r.apply({ revision: '2', upsert: later, remove: [] })
  await reference.apply({ revision: '2', upsert: later, remove: [] })
  const alive = setInterval(() => {}, 1000) // the retriever's idle timer keeps no process alive
  await held // the idle snapshot is writing its first block, and waits there
  clearInterval(alive)
  for (const text of queries) {
    const query: RetrievalQuery = { text, limit: 8 }
    assert.equal(await r.search(query), await reference.search(query), `while held: ${text}`)
  }
  let wrote = false
  const write = r.apply({ revision: '3', upsert: [docOf(700)], remove: [] }).then(() => (wrote = true))
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setTimeout(resolve, 1))
  assert.is(wrote, false, 'the write waits for the snapshot (and a search after it waits for the write)')
  release()
  await write
  await reference.apply({ revision: '3', upsert: [docOf(700)], remove: [] })
  assert.is(await r.revision(), '3')
  for (const text of queries) {
    const query: RetrievalQuery = { text, limit: 8 }
    assert.equal(await r.search(query), await reference.search(query), `after: ${text}`)
  }
  const head = JSON.parse((await store.read('head'))!) as { build: string; revision: string }
  assert.is(head.revision, '2', 'the build holds what the index held when it was started')
  assert.not.ok(store.names().includes(before), 'the build it replaced is removed')
  // A new process reads the build and catches up from its revision as the kernel does.
  const next = bm25Retriever()
  next.attach!(store)
  assert.is(await next.revision(), '2')
  await next.apply({ revision: '3', upsert: [docOf(700)], remove: [] })
  for (const text of queries) {
    const query: RetrievalQuery = { text, limit: 8 }
    assert.equal(await next.search(query), await reference.search(query), `read back: ${text}`)
  }
})

test.run()
