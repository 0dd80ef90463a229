import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel, memoryStorage } from '../src/index.js'

/** A distinct word for each number (`ab`, `ac`, …): titles that differ by a number alone are one subject to the same-subject rule. */
const word = (i: number) => String.fromCharCode(97 + Math.floor(i / 26), 97 + (i % 26)) + 'x'

/** Team mode serves many clients from one kernel: interleaved operations must not corrupt its caches. */
test('two hundred interleaved writes, searches, listings and index reads in one process lose nothing', async () => {
  const storage = memoryStorage()
  const k = createKernel({ storage })
  const topics = ['billing', 'search', 'auth', 'queues', 'uploads']
  const ops: Array<Promise<unknown>> = []
  for (let i = 0; i < 100; i++) {
    const topic = topics[i % topics.length]!
    ops.push(
      k.memory.write({
        title: `Service ${topic} handler ${word(i)} retries with backoff`,
        body: `Handler ${word(i)} of ${topic} retries.`,
        type: 'convention',
        tags: [`h${i}`],
      }),
    )
    ops.push(
      i % 3 === 0
        ? k.memory.list()
        : i % 3 === 1
          ? k.memory.search({ query: `${topic} handler` })
          : k.memory.readIndex(),
    )
  }
  const results = await Promise.allSettled(ops)
  assert.equal(
    results.filter((r) => r.status === 'rejected'),
    [],
    'no operation failed',
  )
  const facts = await k.memory.list({ status: 'all' })
  assert.is(facts.length, 100, 'every write stored once')
  assert.equal(
    facts.map((f) => f.id),
    Array.from({ length: 100 }, (_, i) => `fact-${String(i + 1).padStart(4, '0')}`),
    'gapless ids',
  )
  assert.is(await k.memory.activeCount(), (await k.memory.list()).length)
  for (const i of [0, 37, 99]) {
    const { hits } = await k.memory.search({ query: word(i) })
    assert.ok(
      hits.some((h) => h.fact.tags.includes(`h${i}`)),
      `h${i} is found`,
    )
  }
  const index = await k.memory.readIndex()
  assert.match(index, new RegExp(`${facts.length}|fact-0100`), 'the index was rebuilt from the final state')
})

test('searches racing a burst of writes from another kernel on the same storage see a consistent memory', async () => {
  const storage = memoryStorage()
  const writer = createKernel({ storage })
  const reader = createKernel({ storage })
  const writes = Array.from({ length: 60 }, (_, i) =>
    writer.memory.write({
      title: `Queue ${word(i)} is drained nightly`,
      body: `${word(i)} drains.`,
      type: 'convention',
    }),
  )
  const reads = Array.from({ length: 60 }, () => reader.memory.search({ query: 'queue drained nightly' }))
  await Promise.all([...writes, ...reads])
  assert.is((await reader.memory.list()).length, (await writer.memory.list()).length)
  assert.is(
    (await reader.memory.search({ query: word(59) })).hits[0]?.fact.title,
    `Queue ${word(59)} is drained nightly`,
  )
})

test.run()
