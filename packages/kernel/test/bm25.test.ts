import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { bm25Retriever } from '../src/index.js'
import type { RetrievalDoc } from '../src/retrieval.js'
import { calibrateScoreScale, distractors, memorySnapshotStore, retrieverSuite } from '../src/testing/index.js'
import { Base64Words, base64Range, base64RangeJs, fromBase64, fromBase64Js, toBase64 } from '../src/bm25/base64.js'

retrieverSuite(test, () => bm25Retriever(), { prefix: 'bm25Retriever: ' })

const docs: RetrievalDoc[] = [
  ...distractors(200),
  {
    id: 'fact-0001',
    title: 'Kubernetes manifests live in the infra repository',
    body: 'Helm charts are rendered in CI.',
    tags: ['infra', 'k8s'],
    type: 'decision',
    scope: 'project',
  },
  {
    id: 'fact-0002',
    title: 'Payments use Stripe',
    body: 'Stripe webhooks are verified; payments retry three times.',
    tags: ['payments'],
    type: 'constraint',
    scope: 'module:billing',
  },
]
const queries = [
  'module team standard',
  'kubernet',
  'kubernetse charts',
  'stripe payments webhooks retry',
  'logging uses structured JSON',
  'how do we apply the caching module standard',
  'infra',
]

test('bm25Retriever: a snapshot restores the same hits after removals and compaction', async () => {
  const store = memorySnapshotStore()
  const first = bm25Retriever()
  first.attach!(store)
  await first.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  await first.apply({ revision: '2', upsert: [], remove: distractors(60).map((d) => d.id) }) // dead slots past a tenth: compacted
  await first.apply({
    revision: '3',
    upsert: [{ ...docs.at(-1)!, body: 'Stripe only; Adyen was dropped.' }],
    remove: [],
  })
  await first.flush!(true)
  const second = bm25Retriever()
  second.attach!(store)
  assert.is(await second.revision(), '3')
  for (const text of [...queries, 'adyen', 'webhooks'])
    assert.equal(await second.search({ text, limit: 10 }), await first.search({ text, limit: 10 }), text)
  assert.equal(await second.search({ text: 'webhooks', limit: 5 }), [], 'the replaced text is gone')
  assert.is(
    (await second.search({ text: 'team standard number', limit: 500 })).length,
    140,
    'removed facts stay removed',
  )
  // Writes on a restored index (postings still encoded, then decoded for the write) match the original's.
  const later = {
    revision: '4',
    upsert: [{ ...docs[0]!, id: 'fact-0009', title: 'Stripe payments module standard' }],
    remove: ['fact-1100', 'fact-0001'],
  }
  await first.apply(later)
  await second.apply(later)
  for (const text of [...queries, 'stripe module standard'])
    assert.equal(
      await second.search({ text, limit: 10 }),
      await first.search({ text, limit: 10 }),
      `after a write: ${text}`,
    )
})

test('bm25Retriever: a snapshot whose postings name missing documents is dropped, and the kernel re-indexes', async () => {
  const store = memorySnapshotStore()
  const r = bm25Retriever()
  r.attach!(store)
  await r.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  const docsPart = store.names().find((n) => n.endsWith('/docs'))!
  const parsed = JSON.parse((await store.read(docsPart))!)
  await store.write(docsPart, JSON.stringify({ ...parsed, docs: 10 })) // fewer documents than the data holds
  const next = bm25Retriever()
  next.attach!(store)
  assert.equal(await next.search({ text: 'stripe', limit: 3 }), [])
  assert.is(await next.revision(), undefined)
})

test('bm25Retriever: a write never writes the snapshot; it is written once idle', async () => {
  const store = memorySnapshotStore()
  const r = bm25Retriever({ snapshotEvery: 4, idleMs: 20 })
  r.attach!(store)
  await r.apply({ revision: '1', reset: true, upsert: docs.slice(0, 10), remove: [] })
  const written = store.names().filter((n) => n.endsWith('/data'))
  for (let i = 0; i < 6; i++) await r.apply({ revision: String(2 + i), upsert: [docs[10 + i]!], remove: [] })
  assert.equal(
    store.names().filter((n) => n.endsWith('/data')),
    written,
    'no snapshot inside the writes',
  )
  // Once idle the snapshot is written: a new retriever on the store sees every write (polled, bounded at 30 s).
  const revisionOnDisk = async () => {
    const after = bm25Retriever()
    after.attach!(store)
    return after.revision()
  }
  for (const deadline = Date.now() + 30_000; (await revisionOnDisk()) !== '7' && Date.now() < deadline; )
    await new Promise((resolve) => setTimeout(resolve, 10))
  assert.is(await revisionOnDisk(), '7', 'the idle snapshot holds every write')
  await r.close!()
})

test('bm25Retriever: an unreadable snapshot part means no revision (the kernel re-indexes)', async () => {
  const store = memorySnapshotStore()
  const r = bm25Retriever()
  r.attach!(store)
  await r.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  for (const name of store.names()) if (name.endsWith('/data')) await store.write(name, 'not base64!')
  const next = bm25Retriever()
  next.attach!(store)
  assert.equal(await next.search({ text: 'stripe', limit: 3 }), [])
  assert.is(await next.revision(), undefined)
})

test('bm25Retriever: postings that are not base64 drop the snapshot at the search that reads them', async () => {
  const store = memorySnapshotStore()
  const r = bm25Retriever()
  r.attach!(store)
  await r.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  for (const postings of store.names().filter((n) => /\/postings-\d+$/.test(n)))
    await store.write(postings, '!'.repeat((await store.read(postings))!.length))
  const next = bm25Retriever()
  next.attach!(store)
  assert.is(await next.revision(), '1', 'the head alone looks current')
  assert.equal(await next.search({ text: 'stripe', limit: 3 }), [])
  assert.is(await next.revision(), undefined, 'dropped: the kernel re-indexes')
})

test('bm25Retriever: a postings block whose own offsets do not fit it drops the snapshot at the search that reads it', async () => {
  const store = memorySnapshotStore()
  const r = bm25Retriever()
  r.attach!(store)
  await r.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  const blocks = store.names().filter((n) => /\/postings-\d+$/.test(n))
  assert.ok(blocks.length > 0)
  for (const block of blocks) {
    // The first offset is where the gaps start, just past the offsets: moved 8 bytes on, it no longer fits.
    const bytes = fromBase64((await store.read(block))!)
    const view = new DataView(bytes.buffer, bytes.byteOffset)
    view.setUint32(0, view.getUint32(0, true) + 8, true)
    await store.write(block, toBase64(bytes))
  }
  const next = bm25Retriever()
  next.attach!(store)
  assert.is(await next.revision(), '1', 'the head alone looks current')
  assert.equal(await next.search({ text: 'stripe', limit: 3 }), [])
  assert.is(await next.revision(), undefined, 'dropped: the kernel re-indexes')
})

test('bm25Retriever: a typo or prefix looked up before a write sees the terms the write adds', async () => {
  const r = bm25Retriever()
  await r.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  assert.equal(await r.search({ text: 'zebrra', limit: 3 }), [])
  assert.equal(await r.search({ text: 'zebr', limit: 3 }), [])
  await r.apply({
    revision: '2',
    upsert: [{ ...docs[0]!, id: 'fact-0777', title: 'Zebra crossings', body: '' }],
    remove: [],
  })
  assert.equal(
    (await r.search({ text: 'zebrra', limit: 3 })).map((h) => h.id),
    ['fact-0777'],
    'typo',
  )
  assert.equal(
    (await r.search({ text: 'zebr', limit: 3 })).map((h) => h.id),
    ['fact-0777'],
    'prefix',
  )
})

test('bm25Retriever: calibrateScoreScale measures the declared 1', async () => {
  const measured = await calibrateScoreScale(bm25Retriever())
  assert.ok(Math.abs(measured - 1) < 0.05, `measured ${measured}`)
})

/** A retriever on `store` after `docs` were indexed and snapshotted there; the names of the build's parts. */
async function snapshotted(store: ReturnType<typeof memorySnapshotStore>) {
  const r = bm25Retriever()
  r.attach!(store)
  await r.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  const named = (part: string) => store.names().find((n) => n.endsWith(`/${part}`))!
  return { r, named }
}

test('bm25Retriever: a snapshot whose ids part is cut short is dropped, and the kernel re-indexes', async () => {
  const store = memorySnapshotStore()
  const { named } = await snapshotted(store)
  await store.write(named('ids'), (await store.read(named('ids')))!.slice(0, -3))
  const next = bm25Retriever()
  next.attach!(store)
  assert.equal(await next.search({ text: 'stripe', limit: 3 }), [])
  assert.is(await next.revision(), undefined)
})

test('bm25Retriever: a snapshot whose terms are out of order is dropped at the lookup that meets them', async () => {
  const store = memorySnapshotStore()
  const { named } = await snapshotted(store)
  // Rewrite the terms in descending order, with their offsets (the table's termAt words) to match.
  const { docs: n, terms: m } = JSON.parse((await store.read(named('docs')))!)
  const text = (await store.read(named('terms')))!
  const bytes = fromBase64((await store.read(named('table')))!)
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)
  const termAt = words.subarray(n + 1, n + 1 + m + 1)
  const terms = Array.from({ length: m }, (_, t) => text.slice(termAt[t], termAt[t + 1])).reverse()
  for (let t = 0; t < m; t++) termAt[t + 1] = termAt[t]! + terms[t]!.length
  await store.write(named('terms'), terms.join(''))
  await store.write(named('table'), toBase64(bytes))
  const next = bm25Retriever()
  next.attach!(store)
  assert.is(await next.revision(), '1', 'the lengths fit: the head looks current')
  assert.equal(await next.search({ text: 'stripe', limit: 3 }), [])
  assert.is(await next.revision(), undefined, 'dropped: the kernel re-indexes')
})

test('bm25Retriever: a head of the earlier format reads as none; the first snapshot removes its build', async () => {
  const store = memorySnapshotStore()
  await store.write('head', JSON.stringify({ format: 'foundry-bm25/4', build: 'old', revision: '1' }))
  for (const part of ['docs', 'ids', 'terms', 'data', 'table', 'postings']) await store.write(`old/${part}`, 'x')
  const r = bm25Retriever()
  r.attach!(store)
  assert.is(await r.revision(), undefined, 'the kernel indexes again')
  await r.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  assert.equal(
    store.names().filter((n) => n.startsWith('old/')),
    [],
    'the old build is gone',
  )
  const next = bm25Retriever()
  next.attach!(store)
  assert.is(await next.revision(), '1')
  assert.equal(await next.search({ text: 'stripe', limit: 3 }), await r.search({ text: 'stripe', limit: 3 }))
})

test('bm25Retriever: a write as the first call on a restored index (ids mapped, no search yet) matches the original', async () => {
  const store = memorySnapshotStore()
  const { r } = await snapshotted(store)
  const next = bm25Retriever()
  next.attach!(store)
  const later = {
    revision: '2',
    upsert: [{ ...docs[0]!, id: 'fact-0009', title: 'Stripe payments module standard' }],
    remove: ['fact-1100', 'fact-0001', ...distractors(40).map((d) => d.id)], // past a tenth dead: compacted
  }
  await r.apply(later)
  await next.apply(later)
  for (const text of [...queries, 'stripe module standard', 'kubernetes'])
    assert.equal(await next.search({ text, limit: 10 }), await r.search({ text, limit: 10 }), text)
})

test('base64 words: little-endian 32-bit words read one at a time, at every offset', () => {
  const values = [0, 1, 255, 256, 65535, 65536, 0x7fffffff, 0x80000000, 0xffffffff, 0x12345678, 0xdeadbeef]
  // Word i starts at byte 4 (lead + i): every position within a base64 group of three bytes, at every lead.
  for (let lead = 0; lead < 3; lead++) {
    const bytes = new Uint8Array(4 * (lead + values.length))
    const view = new DataView(bytes.buffer)
    values.forEach((v, i) => view.setUint32(4 * (lead + i), v, true))
    const words = new Base64Words(toBase64(bytes), lead, values.length)
    assert.equal(
      values.map((_, i) => words.get(i)),
      values,
      `after ${lead} words`,
    )
  }
  // A long table, past the pieces a reader keeps decoded: every word read in a scattered order, twice.
  for (const lead of [0, 1, 2]) {
    const count = 768 * 40 + 5
    const bytes = new Uint8Array(4 * (lead + count))
    const view = new DataView(bytes.buffer)
    for (let i = 0; i < count; i++) view.setUint32(4 * (lead + i), (i * 2654435761) >>> 0, true)
    const words = new Base64Words(toBase64(bytes), lead, count)
    for (const order of [(k: number) => (k * 7919) % count, (k: number) => count - 1 - k]) {
      const wrong = [...Array(count).keys()].map(order).find((i) => words.get(i) !== (i * 2654435761) >>> 0)
      assert.equal(wrong, undefined, `after ${lead} words`)
    }
  }
  // Text that is not base64 far into a long table throws where it is read, not as a number.
  const long = toBase64(new Uint8Array(4 * 768 * 3))
  const broken = `${long.slice(0, 5000)}!!!!${long.slice(5004)}`
  assert.equal(new Base64Words(broken, 0, 768 * 3).get(0), 0)
  assert.throws(() => new Base64Words(broken, 0, 768 * 3).get(768 + 200), /not base64/)
  assert.throws(() => new Base64Words(toBase64(new Uint8Array(8)), 0, 2).get(2), /out of range/)
  assert.throws(() => new Base64Words('!!!!!!!!!!!!', 0, 2).get(0), /not base64/)
})

test('base64 round trip of every length and byte, whole and by range, by the runtime and in JavaScript', () => {
  // Ranges of 48 bytes and more decode in the runtime (here Node's), shorter ones and the fallback in JavaScript.
  for (const n of [...Array(70).keys(), 100, 131, 200]) {
    const bytes = new Uint8Array(n).map((_, i) => (i * 97 + n) & 255)
    const text = toBase64(bytes)
    assert.equal([...fromBase64(text)], [...bytes])
    assert.equal([...fromBase64Js(text)], [...bytes])
    for (let from = 0; from <= n; from += n > 70 ? 17 : 3)
      for (let to = from; to <= n; to += n > 70 ? 11 : 2) {
        assert.equal([...base64Range(text, from, to)], [...bytes.subarray(from, to)], `bytes ${from}-${to} of ${n}`)
        assert.equal([...base64RangeJs(text, from, to)], [...bytes.subarray(from, to)], `bytes ${from}-${to} of ${n}`)
      }
  }
})

test('base64 that is not: refused by the runtime decoder as by the JavaScript one', () => {
  const text = toBase64(new Uint8Array(120).map((_, i) => i))
  for (const bad of [`${text.slice(0, 40)}!${text.slice(41)}`, `${text.slice(0, 40)} ${text.slice(41)}`]) {
    assert.throws(() => fromBase64(bad), /not base64/)
    assert.throws(() => fromBase64Js(bad), /not base64/)
    assert.throws(() => base64Range(bad, 0, 90), /not base64/)
    assert.throws(() => base64RangeJs(bad, 0, 90), /not base64/)
  }
})

test.run()
