import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { isFoundryError, type Fact } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { runFixture, sleep, tempRoot, walk } from './helpers.js'

const fact = (id: string, title: string): Fact => ({
  id,
  title,
  body: 'An acknowledged write.',
  type: 'domain',
  scope: 'project',
  tags: [],
  confidence: 'medium',
  source: 'code',
  created: new Date().toISOString(),
  status: 'active',
})

/** What memory.write does: the next id read and written inside one exclusive section. */
async function writeNext(storage: ReturnType<typeof fsStorage>, title: string): Promise<string> {
  return storage.exclusive(async () => {
    const id = `fact-${String((await storage.keys('facts')).length + 1).padStart(4, '0')}`
    await storage.put('facts', id, fact(id, title))
    return id
  })
}

test('a holder stopped (SIGSTOP) past the stale time keeps its lock: after SIGCONT no acknowledged write is lost', async () => {
  const root = tempRoot()
  const stale = 2000
  const acknowledged = new Map<string, string>()
  for (let round = 1; round <= 2; round++) {
    const holder = runFixture('stall-holder', [root, String(stale)])
    await holder.printed('in ')
    holder.kill('SIGSTOP')
    // Others write while it is stopped, for longer than the stale time; it resumes at 3.5 s.
    const resume = sleep(stale + 1500).then(() => holder.kill('SIGCONT'))
    const storage = fsStorage({ root, lock: { stale, timeout: 20_000 } })
    const writes = await Promise.all(
      [1, 2].map(async (k) => {
        const title = `round ${round} writer ${k}`
        acknowledged.set(await writeNext(storage, title), title)
      }),
    )
    assert.is(writes.length, 2)
    await resume
    const { stdout } = await holder.done
    assert.match(stdout, /wrote fact-\d{4}/, stdout)
  }
  const titles = new Map((await fsStorage({ root }).list('facts')).map((f) => [f.id, f.title]))
  for (const [id, title] of acknowledged) assert.is(titles.get(id), title, `${id} kept as acknowledged`)
  assert.is(titles.size, 6, 'four acknowledged writes and the two holders’ writes, none over another')
})

test('a holder whose lock was taken over writes nothing: the rename is fenced by the lock’s owner token', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root, lock: { stale: 2000, timeout: 5000 } })
  const lock = join(root, '.foundry', 'cache', 'write.lock')
  const error = await storage
    .exclusive(async () => {
      await storage.put('facts', 'fact-0001', fact('fact-0001', 'inside'))
      // Another process (on another machine, so its liveness cannot be checked) broke and took the lock.
      rmSync(lock, { recursive: true })
      mkdirSync(lock)
      writeFileSync(join(lock, 'owner'), JSON.stringify({ host: 'elsewhere', pid: 1, start: '1', token: 'theirs' }))
      await storage.put('facts', 'fact-0002', fact('fact-0002', 'after the lock was lost'))
    })
    .then(
      () => undefined,
      (e: unknown) => e,
    )
  assert.ok(isFoundryError(error) && error.code === 'UNAVAILABLE', String(error))
  assert.match((error as Error).message, /write lock .*lost/)
  assert.ok(existsSync(join(root, '.foundry', 'memory', 'facts', 'fact-0001.md')))
  assert.not.ok(
    existsSync(join(root, '.foundry', 'memory', 'facts', 'fact-0002.md')),
    'nothing written once the lock is lost',
  )
  assert.equal(
    walk(join(root, '.foundry', 'memory', 'facts')).filter((p) => p.endsWith('.tmp')),
    [],
    'its temporary file removed',
  )
  assert.is(JSON.parse(readFileSync(join(lock, 'owner'), 'utf8')).token, 'theirs', 'the other holder’s lock left alone')
})

test('a batch written after the lock was taken over writes none of its records', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root, lock: { stale: 2000, timeout: 5000 } })
  const lock = join(root, '.foundry', 'cache', 'write.lock')
  const error = await storage
    .exclusive(async () => {
      rmSync(lock, { recursive: true })
      mkdirSync(lock)
      writeFileSync(join(lock, 'owner'), JSON.stringify({ host: 'elsewhere', pid: 1, start: '1', token: 'theirs' }))
      await storage.putMany('meta', [
        { key: 'batch/a', value: 'a' },
        { key: 'batch/b', value: 'b' },
      ])
    })
    .then(
      () => undefined,
      (e: unknown) => e,
    )
  assert.ok(isFoundryError(error) && error.code === 'UNAVAILABLE', String(error))
  assert.equal(await storage.get('meta', 'batch/a'), undefined)
  assert.equal(await storage.get('meta', 'batch/b'), undefined)
  assert.equal(
    walk(join(root, '.foundry')).filter((p) => p.endsWith('.tmp')),
    [],
    'its temporary files removed',
  )
})

test('a holder whose event loop is blocked past the stale time (a cold parse) keeps its lock', async () => {
  const root = tempRoot()
  const holder = fsStorage({ root, lock: { stale: 2000, timeout: 5000 } })
  const waiter = runFixture('stall-holder', [root, '2000'])
  const polling = waiter.printed('waiting')
  let waiterIn = 0
  await holder.exclusive(async () => {
    await polling // the waiter asks for the lock now, and polls it
    const until = Date.now() + 2600
    while (Date.now() < until); // no timer runs: the lock is not refreshed
    waiterIn = Date.now()
    await holder.put('facts', 'fact-0001', fact('fact-0001', 'the busy holder'))
  })
  const { stdout } = await waiter.done
  assert.match(stdout, /in fact-0002/, `the waiter entered after the holder: ${stdout}`)
  assert.ok(waiterIn > 0)
})

test.run()
