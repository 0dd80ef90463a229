import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { sqliteStorage } from '../src/index.js'
import { failure, tempDb } from './helpers.js'

test('a section that throws rolls back its log appends with its records, and the next append leaves no gap', async () => {
  const storage = sqliteStorage({ path: tempDb() })
  await storage.appendLog('run/1', ['a'])
  const error = await storage
    .exclusive(async () => {
      assert.is(await storage.appendLog('run/1', ['b', 'c']), 3, 'inside, the section reads its own append')
      assert.equal((await storage.readLog('run/1', 0)).entries, ['a', 'b', 'c'])
      await storage.appendLog('run/2', ['x'], { durability: 'relaxed' })
      await storage.put('marbles.runs', 'run-1', { status: 'running' })
      throw new Error('planned failure')
    })
    .catch((e: Error) => e)
  assert.is((error as Error).message, 'planned failure')
  assert.is(await storage.logEnd('run/1'), 1, 'the appends rolled back')
  assert.equal(await storage.readLog('run/1', 0), { entries: ['a'], cursor: 1 })
  assert.equal(await storage.logs(), ['run/1'], 'a log created inside the section is gone too')
  assert.is(await storage.get('marbles.runs', 'run-1'), undefined, "with the section's records")
  assert.is(await storage.appendLog('run/1', ['d']), 2, 'the next append takes the next cursor')
  assert.equal((await storage.readLog('run/1', 0)).entries, ['a', 'd'])

  await storage.exclusive(async () => {
    await storage.appendLog('run/1', ['e'])
    await storage.appendLog('run/1', ['f'])
  })
  assert.equal(
    await storage.readLog('run/1', 1),
    { entries: ['d', 'e', 'f'], cursor: 4 },
    'a section that succeeds commits its appends',
  )
  await storage.close?.()
})

test('readLog: a cursor past the end answers the end, fractions floor, a bad cursor or limit is INVALID_INPUT', async () => {
  const storage = sqliteStorage({ path: tempDb() })
  assert.is(await storage.appendLog('j', []), 0, 'appending nothing returns the end')
  assert.equal(await storage.logs(), [], 'and creates no log')
  await storage.appendLog('j', ['a', 'b', 'c'])
  assert.equal(await storage.readLog('j', 99), { entries: [], cursor: 3 })
  assert.equal(await storage.readLog('j', 1.7), { entries: ['b', 'c'], cursor: 3 })
  assert.equal(await storage.readLog('j', -5, { limit: 1 }), { entries: ['a'], cursor: 1 })
  assert.equal(
    await storage.readLog('j', 1, { limit: 0 }),
    { entries: [], cursor: 1 },
    'limit 0 reads nothing and keeps the cursor',
  )
  const refused = async (fn: () => unknown, field: string) => {
    const error = await failure(fn)
    assert.is(error.code, 'INVALID_INPUT')
    assert.ok(error.message.includes(field), error.message)
  }
  await refused(() => storage.readLog('j', Number.NaN), 'cursor')
  await refused(() => storage.readLog('j', '1' as never), 'cursor')
  await refused(() => storage.readLog('j', 0, { limit: Number.NaN }), 'limit')
  await refused(() => storage.appendLog('j', 'entry' as never), 'entries')
  for (const name of ['', '/abs', 'a//b', 'a/../b', '.hidden']) await refused(() => storage.logEnd(name), 'log name')
  await storage.close?.()
})

test.run()
