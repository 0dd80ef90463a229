import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel, memoryStorage } from '../src/index.js'

const turn = () => new Promise((resolve) => setTimeout(resolve, 5))

test('eventsAfterTurn: a call resolves before its event is written; the events follow, in call order, with their own times', async () => {
  const storage = memoryStorage()
  let clock = Date.parse('2026-11-30T00:00:00Z')
  const k = createKernel({ storage, eventsAfterTurn: true, now: () => new Date((clock += 1000)) })
  // The retriever brought up first: a search that reads every fact lets timers run between its pages.
  await k.memory.warm()
  await k.memory.write({ title: 'Money is stored in integer cents', body: 'x', type: 'convention' })
  const found = await k.memory.search({ query: 'money' })
  await k.record('marbles.run_started', { run: 'r1' })
  assert.is(found.hits.length, 1)
  assert.equal(await storage.readEvents(), [], 'nothing written during the turn the calls resolved in')
  clock = Date.parse('2030-01-01T00:00:00Z') // the events are written after this
  await turn()
  const events = await storage.readEvents()
  assert.equal(
    events.map((e) => e.kind),
    ['memory_write', 'memory_search', 'marbles.run_started'],
  )
  assert.ok(
    events.every((e, i) => e.ts < '2030' && (i === 0 || events[i - 1]!.ts < e.ts)),
    `each event keeps the time of its call: ${events.map((e) => e.ts).join(', ')}`,
  )
  await k.close()
})

test('eventsAfterTurn: close() writes the events still waiting before it resolves', async () => {
  const written: string[] = []
  const k = createKernel({
    storage: memoryStorage(),
    eventsAfterTurn: true,
    telemetry: { record: async (event) => void written.push(event.kind) },
  })
  await k.memory.search({ query: 'anything' })
  await k.record('session_end')
  const close = k.close()
  assert.equal(written, [], 'not written yet')
  await close
  assert.equal(written, ['memory_search', 'session_end'])
})

test('by default an event is written when its call resolves', async () => {
  const storage = memoryStorage()
  const k = createKernel({ storage })
  await k.memory.search({ query: 'anything' })
  assert.equal(
    (await storage.readEvents()).map((e) => e.kind),
    ['memory_search'],
  )
})

test.run()
