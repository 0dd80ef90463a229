import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { FoundryError, memoryStorage } from '../src/index.js'
import { createStorage, EVENTS_LOG, type StorageDriver } from '../src/adapter-api.js'
import { memoryDriver } from '../src/memory-storage.js'
import { sampleFact } from '../src/testing/index.js'
import { rejects } from '../src/testing/expect.js'

test('a driver without a required method is refused, naming what it lacks', async () => {
  const { readLog: _r, appendLog: _a, ...partial } = memoryDriver()
  const error = await rejects(
    async () => createStorage({ ...partial, name: 'half' } as unknown as StorageDriver),
    'INVALID_INPUT',
    'a driver without appendLog and readLog',
  )
  assert.match(error.message, /^Storage driver "half" lacks appendLog, readLog: a driver needs name, flags, get, put/)
})

test('close is idempotent: the driver closes once, and every later call is UNAVAILABLE', async () => {
  let closes = 0
  const driver = memoryDriver()
  const storage = createStorage({ ...driver, close: async () => void closes++ })
  await Promise.all([storage.close?.(), storage.close?.()])
  await storage.close?.()
  assert.is(closes, 1)
  for (const call of [
    () => storage.get('facts', 'fact-0001'),
    () => storage.exclusive(async () => 1),
    () => storage.appendEvent({ ts: '2026-01-01T00:00:00.000Z', kind: 'x' }),
    () => storage.logs(),
  ]) {
    const error = await rejects(call, 'UNAVAILABLE', 'a call after close')
    assert.is(error.message, 'The memory storage is closed: open it again to use it')
  }
})

test("list without the driver's: keys then get, a record that cannot be read reported through onProblem and left out", async () => {
  const { list: _list, ...driver } = memoryDriver() // without its own list: the kernel's default runs
  const storage = createStorage({
    ...driver,
    name: 'picky',
    get: async (c, key) => {
      if (key === 'fact-0002') throw new FoundryError('CORRUPT', 'fact-0002 cannot be read: bad front matter')
      return driver.get(c, key)
    },
  })
  for (const n of [1, 2, 3]) await storage.put('facts', sampleFact(n).id, sampleFact(n))
  const problems: unknown[] = []
  const listed = await storage.list('facts', { onProblem: (p) => problems.push(p) })
  assert.equal(
    listed.map((f) => f.id),
    ['fact-0001', 'fact-0003'],
  )
  assert.equal(problems, [
    {
      collection: 'facts',
      key: 'fact-0002',
      location: 'picky://facts/fact-0002',
      message: 'fact-0002 cannot be read: bad front matter',
    },
  ])
})

test('events are the reserved log: kept and read back, never named by logs(), and no consumer can write to it', async () => {
  const storage = memoryStorage()
  await storage.appendEvent({ ts: '2026-01-01T00:00:00.000Z', kind: 'memory_write', data: { id: 'fact-0001' } })
  await storage.appendLog('marbles/run-1', ['x'])
  assert.equal(await storage.readEvents(), [
    { ts: '2026-01-01T00:00:00.000Z', kind: 'memory_write', data: { id: 'fact-0001' } },
  ])
  assert.equal(await storage.logs(), ['marbles/run-1'])
  await rejects(() => storage.appendLog(EVENTS_LOG, ['{}']), 'INVALID_INPUT', 'an append to the events log')
  await rejects(() => storage.readLog(EVENTS_LOG, 0), 'INVALID_INPUT', 'a read of the events log')
})

test('readEvents skips an entry that is not an event (a line cut short by a crash), and keeps the rest', async () => {
  const driver = memoryDriver()
  const storage = createStorage(driver)
  await storage.appendEvent({ ts: '2026-01-01T00:00:00.000Z', kind: 'session_end' })
  await driver.appendLog(EVENTS_LOG, ['{"ts":"2026-01-01T00:00:01.000Z","ki'])
  await storage.appendEvent({ ts: '2026-01-01T00:00:02.000Z', kind: 'session_end' })
  assert.equal(
    (await storage.readEvents()).map((e) => e.ts),
    ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:02.000Z'],
  )
})

test('readLog: fractions floor, negatives read from 0, a cursor past the end answers the end, NaN is INVALID_INPUT naming the field', async () => {
  const storage = memoryStorage()
  await storage.appendLog('l', ['a', 'b', 'c'])
  assert.equal(await storage.readLog('l', 1.7, { limit: 1.9 }), { entries: ['b'], cursor: 2 })
  assert.equal(await storage.readLog('l', -5, { limit: 1 }), { entries: ['a'], cursor: 1 })
  assert.equal(await storage.readLog('l', 99), { entries: [], cursor: 3 })
  assert.is(await storage.logEnd('l'), 3, 'logEnd from readLog past the end, the driver having none')
  assert.match(
    (await rejects(() => storage.readLog('l', Number.NaN), 'INVALID_INPUT', 'a NaN cursor')).message,
    /^readLog's cursor must be a number/,
  )
  assert.match(
    (
      await rejects(
        () => storage.readLog('l', 0, { limit: 'all' as unknown as number }),
        'INVALID_INPUT',
        'a limit that is not a number',
      )
    ).message,
    /^readLog's limit must be a number/,
  )
  assert.match(
    (
      await rejects(
        () => storage.appendLog('l', 'one' as unknown as string[]),
        'INVALID_INPUT',
        'entries that are not an array',
      )
    ).message,
    /^appendLog's entries must be an array of strings/,
  )
})

test.run()
