import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { spawnSync } from 'node:child_process'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { createKernel, type StorageProblem } from '@foundry/kernel'
import { sampleFact, sampleRecords } from '@foundry/kernel/testing'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { refused, sleep, tempRoot, touchLater } from './helpers.js'

/** A folder outside the project holding a valid fact file, as a link target. */
function outside(): { dir: string; fact: string } {
  const dir = tempRoot()
  const fact = join(dir, 'secret.md')
  writeFileSync(
    fact,
    `---\nid: fact-0001\ntitle: Outside\ntype: domain\ncreated: 2026-01-01T00:00:00Z\n---\n\nOutside the root.\n`,
  )
  return { dir, fact }
}

test('traversal keys, absolute paths and odd names are refused before any path is made', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  for (const [collection, key] of [
    ['meta', '/etc/passwd'],
    ['meta', 'retriever/../../../x'],
    ['meta', '.hidden'],
    ['artifacts', '/abs/agent'],
    ['artifacts', 'w/a/b'],
    ['facts', '../memory/facts/fact-0001'],
    ['facts', 'fact-0001.md'],
    ['runbooks', 'Upper'],
    ['contracts', 'a/b'],
  ] as const) {
    await refused(
      () => storage.put(collection, key, (collection === 'meta' ? 'x' : {}) as never),
      'INVALID_INPUT',
      /Invalid \w+ key/,
    )
    await refused(() => storage.get(collection, key), 'INVALID_INPUT', /Invalid \w+ key/)
    await refused(() => storage.delete(collection, key), 'INVALID_INPUT', /Invalid \w+ key/)
    assert.throws(() => storage.locate(collection, key), /Invalid \w+ key/)
  }
  assert.not.ok(existsSync(join(root, '.foundry')), 'nothing was created')
})

test('a record file linking outside the folder is refused on get, reported on list, and never written through', async () => {
  const root = tempRoot()
  const { fact } = outside()
  const storage = fsStorage({ root })
  await storage.put('facts', 'fact-0002', sampleFact(2))
  symlinkSync(fact, join(root, '.foundry', 'memory', 'facts', 'fact-0001.md'))
  await refused(
    () => storage.get('facts', 'fact-0001'),
    'CORRUPT',
    /fact-0001\.md leads outside .*\.foundry \(to .*secret\.md\); Foundry does not follow links out of its folder/,
  )
  const problems: StorageProblem[] = []
  assert.equal(
    (await storage.list('facts', { onProblem: (p) => problems.push(p) })).map((f) => f.id),
    ['fact-0002'],
  )
  assert.is(problems.length, 1)
  assert.match(problems[0]!.message, /leads outside/)
  const before = readFileSync(fact, 'utf8')
  await refused(() => storage.put('facts', 'fact-0001', sampleFact(1)), 'CORRUPT', /leads outside/)
  assert.is(readFileSync(fact, 'utf8'), before, 'the outside file is untouched')
  assert.ok(await storage.delete('facts', 'fact-0001'), 'deleting removes the link itself')
  assert.ok(existsSync(fact), '…and never what it points to')
})

test('a folder linking outside is refused for reads and writes, and nothing is created outside', async () => {
  const root = tempRoot()
  const { dir } = outside()
  const storage = fsStorage({ root })
  await storage.put('artifacts', 'w1/a', { ...sampleRecords.artifact, wave: 'w1', agent: 'a' })
  symlinkSync(dir, join(root, '.foundry', 'blackboard', 'w2'))
  await refused(
    () => storage.put('artifacts', 'w2/a', { ...sampleRecords.artifact, wave: 'w2', agent: 'a' }),
    'CORRUPT',
    /blackboard\/w2 leads outside/,
  )
  await refused(
    () => storage.put('artifacts', 'w2/b', { ...sampleRecords.artifact, wave: 'w2', agent: 'b' }),
    'CORRUPT',
    /leads outside/,
  )
  assert.equal(readdirSync(dir), ['secret.md'], 'nothing written outside')
  writeFileSync(join(dir, 'planted.json'), '{"summary":"planted"}')
  await refused(() => storage.get('artifacts', 'w2/planted'), 'CORRUPT', /leads outside/)
  const problems: StorageProblem[] = []
  assert.equal(
    (await storage.list('artifacts', { onProblem: (p) => problems.push(p) })).map((a) => a.agent),
    ['a'],
  )
  assert.equal(
    problems.map((p) => p.key),
    ['w2/'],
  )

  // The cache folder too: meta writes, journals and the lock all live there.
  const other = tempRoot()
  const linked = fsStorage({ root: other })
  await linked.put('facts', 'fact-0001', sampleFact(1))
  const cache = join(other, '.foundry', 'cache')
  renameSync(cache, join(dir, 'moved-cache'))
  symlinkSync(join(dir, 'moved-cache'), cache)
  await refused(() => linked.put('meta', 'retriever/x/head', '{}'), 'CORRUPT', /cache leads outside/)
  await refused(() => linked.exclusive(async () => 1), 'CORRUPT', /cache leads outside/)
  await refused(() => linked.put('facts', 'fact-0002', sampleFact(2)), 'CORRUPT', /cache leads outside/)
})

test('links that stay inside the folder are read through and replaced by a put; the data folder itself may be a link', async () => {
  const target = tempRoot()
  const root = tempRoot()
  symlinkSync(target, join(root, '.foundry'))
  const storage = fsStorage({ root })
  await storage.put('facts', 'fact-0001', sampleFact(1))
  symlinkSync('fact-0001.md', join(target, 'memory', 'facts', 'fact-0002.md'))
  await refused(
    () => storage.get('facts', 'fact-0002'),
    'CORRUPT',
    /id fact-0001 does not match the file name fact-0002\.md/,
  )
  await storage.put('facts', 'fact-0002', sampleFact(2)) // replaces the link, never writes through it
  assert.is((await storage.get('facts', 'fact-0002'))?.id, 'fact-0002')
  assert.is((await storage.get('facts', 'fact-0001'))?.id, 'fact-0001')
  assert.not.ok(lstatSync(join(target, 'memory', 'facts', 'fact-0002.md')).isSymbolicLink())
})

test('revision and changes follow writes by other instances, and notice files added or removed by hand', async () => {
  const root = tempRoot()
  const a = fsStorage({ root })
  const b = fsStorage({ root })
  const r0 = await b.revision('facts')
  await a.put('facts', 'fact-0001', sampleFact(1))
  await a.put('facts', 'fact-0002', sampleFact(2))
  const r1 = await b.revision('facts')
  assert.is.not(r1, r0)
  assert.equal(
    await b.changes!('facts', r0),
    ['fact-0001', 'fact-0002'],
    'a token from before the journal existed follows it',
  )
  await a.delete('facts', 'fact-0001')
  assert.equal(await b.changes!('facts', r1), ['fact-0001'])

  // A file added by hand (or by git) changes the folder without a journal line.
  const r2 = await b.revision('facts')
  writeFileSync(
    join(root, '.foundry', 'memory', 'facts', 'fact-0009.md'),
    readFileSync(join(root, '.foundry', 'memory', 'facts', 'fact-0002.md'), 'utf8').replace('fact-0002', 'fact-0009'),
  )
  touchLater(join(root, '.foundry', 'memory', 'facts'))
  const r3 = await b.revision('facts')
  assert.is.not(r3, r2, 'the revision changes')
  assert.is(await b.changes!('facts', r2), undefined, 'changes cannot explain it: the kernel re-lists')
  await a.put('facts', 'fact-0003', sampleFact(3))
  assert.is(await b.changes!('facts', r2), undefined, 'nor any later token spanning it')
  assert.equal(await b.changes!('facts', r3), ['fact-0003'], 'tokens after it are fine again')

  const r4 = await b.revision('facts')
  unlinkSync(join(root, '.foundry', 'memory', 'facts', 'fact-0009.md'))
  touchLater(join(root, '.foundry', 'memory', 'facts'))
  assert.is(await b.changes!('facts', r4), undefined, 'a file removed by hand')
  assert.is(await b.changes!('facts', '12.34'), undefined, 'a malformed token')
})

test('a fact edited in place is picked up by memory.index()', async () => {
  const root = tempRoot()
  const kernel = createKernel({ storage: fsStorage({ root }) })
  await kernel.memory.write({ title: 'Deploys happen on Tuesdays', body: 'Only on Tuesdays.', type: 'convention' })
  const file = join(root, '.foundry', 'memory', 'facts', 'fact-0001.md')
  writeFileSync(file, readFileSync(file, 'utf8').replace('Deploys happen on Tuesdays', 'Deploys happen on Thursdays'))
  const result = await kernel.memory.index()
  assert.match(result.text, /Rebuilt .*INDEX\.md/)
  assert.match(
    readFileSync(join(root, '.foundry', 'memory', 'INDEX.md'), 'utf8'),
    /fact-0001 · medium · Deploys happen on Thursdays/,
  )
  assert.is((await kernel.memory.search({ query: 'thursdays' })).hits[0]?.fact.id, 'fact-0001')
})

test('temporary files of writers that died are ignored, then swept; those of live writers stay', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  await storage.put('facts', 'fact-0001', sampleFact(1))
  const dir = join(root, '.foundry', 'memory', 'facts')
  writeFileSync(join(dir, '.fact-0002.md.999999999-k1abc.tmp'), '---\nid: fact-0002\ntitle: half')
  writeFileSync(join(dir, `.fact-0003.md.${process.pid}-k2abc.tmp`), 'in flight')
  const problems: StorageProblem[] = []
  assert.equal(
    (await storage.list('facts', { onProblem: (p) => problems.push(p) })).map((f) => f.id),
    ['fact-0001'],
  )
  assert.equal(problems, [])
  assert.equal(readdirSync(dir).sort(), [`.fact-0003.md.${process.pid}-k2abc.tmp`, 'fact-0001.md'])
})

test("a dead writer's temporary INDEX.md, beside the facts folder, is swept by a meta listing", async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  await storage.put('meta', 'index', '# Memory index\n')
  const dir = join(root, '.foundry', 'memory')
  writeFileSync(join(dir, '.INDEX.md.999999999-k3abc.tmp'), '# Memory in')
  await storage.list('meta')
  assert.equal(
    readdirSync(dir).filter((name) => name.endsWith('.tmp')),
    [],
    'swept',
  )
  assert.is(await storage.get('meta', 'index'), '# Memory index\n')
})

test('exclusive waits for a held lock, breaks a stale one, and times out with UNAVAILABLE naming the lock', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root, lock: { stale: 2000, timeout: 400 } })
  await storage.put('meta', 'index', 'x')
  const lock = join(root, '.foundry', 'cache', 'write.lock')
  mkdirSync(lock) // held by "another process" that keeps it fresh
  await refused(
    () => storage.exclusive(async () => 1),
    'UNAVAILABLE',
    /Timed out after 400 ms waiting for the write lock .*write\.lock: another process holds it/,
  )
  const old = new Date(Date.now() - 60_000)
  utimesSync(lock, old, old) // its holder died a minute ago
  assert.is(await storage.exclusive(async () => 'entered'), 'entered')
  assert.not.ok(existsSync(lock), 'released')
})

test("a fresh lock whose holder on this host is gone is broken at once; a live holder or another host's keeps it until stale", async () => {
  const root = tempRoot()
  const storage = fsStorage({ root, lock: { stale: 60_000, timeout: 400 } })
  await storage.put('meta', 'index', 'x')
  const lock = join(root, '.foundry', 'cache', 'write.lock')
  const hold = (owner: { host: string; pid: number }) => {
    mkdirSync(lock)
    writeFileSync(join(lock, 'owner'), JSON.stringify({ ...owner, start: '', token: 'held' }))
  }
  // A holder on another host, or a live one here (this process, as another writer would be), keeps
  // a fresh lock: the wait times out, the lock is untouched.
  hold({ host: `not-${hostname()}`, pid: process.pid })
  await refused(() => storage.exclusive(async () => 1), 'UNAVAILABLE', /Timed out after 400 ms/)
  assert.ok(existsSync(join(lock, 'owner')))
  writeFileSync(join(lock, 'owner'), JSON.stringify({ host: hostname(), pid: process.pid, start: '', token: 'held' }))
  await refused(() => storage.exclusive(async () => 1), 'UNAVAILABLE', /Timed out after 400 ms/)
  // A holder killed in its section: its pid runs no more. The lock is an hour from stale, yet broken now.
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  writeFileSync(
    join(lock, 'owner'),
    JSON.stringify({ host: hostname(), pid: Number(dead.stdout), start: '', token: 'held' }),
  )
  assert.is(await storage.exclusive(async () => 'entered'), 'entered')
  assert.not.ok(existsSync(lock), 'released')
})

test('a meta name cannot be both a record and a folder of records: CONFLICT, and a folder reads as no record', async () => {
  const storage = fsStorage({ root: tempRoot() })
  await storage.put('meta', 'a/b', 'x')
  await refused(() => storage.put('meta', 'a', 'y'), 'CONFLICT', /cache\/meta\/a is a folder/)
  assert.is(await storage.get('meta', 'a'), undefined)
  await storage.put('meta', 'c', 'z')
  await refused(() => storage.put('meta', 'c/d', 'w'), 'CONFLICT', /cache\/meta\/c is a file/)
  assert.equal((await storage.list('meta')).sort(), ['x', 'z'])
  assert.ok(await storage.delete('meta', 'a/b'))
  assert.not.ok(existsSync(join(storage.locate('meta', 'a'))), 'the emptied folder is pruned')
})

test('waiters that find the same stale lock at once break it once: sections never overlap', async () => {
  const root = tempRoot()
  const stores = Array.from({ length: 4 }, () => fsStorage({ root, lock: { stale: 2000, timeout: 10_000 } }))
  await stores[0]!.put('meta', 'index', 'x')
  const lock = join(root, '.foundry', 'cache', 'write.lock')
  mkdirSync(lock)
  const old = new Date(Date.now() - 60_000)
  utimesSync(lock, old, old)
  let inside = 0
  let overlaps = 0
  const section = async () => {
    if (++inside > 1) overlaps++
    await sleep(2)
    inside--
  }
  await Promise.all(stores.flatMap((s) => Array.from({ length: 5 }, () => s.exclusive(section))))
  assert.is(overlaps, 0)
  assert.not.ok(existsSync(lock) || existsSync(`${lock}.break`), 'released, no breaker left')
})

test('a stale lock is broken only by the waiter holding the breaker', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root, lock: { stale: 2000, timeout: 300 } })
  await storage.put('meta', 'index', 'x')
  const lock = join(root, '.foundry', 'cache', 'write.lock')
  const old = new Date(Date.now() - 60_000)
  mkdirSync(lock)
  utimesSync(lock, old, old)
  mkdirSync(`${lock}.break`) // another waiter is breaking it right now
  await refused(() => storage.exclusive(async () => 1), 'UNAVAILABLE', /Timed out/)
  assert.ok(existsSync(lock), 'not removed behind the breaker holder')
  utimesSync(`${lock}.break`, old, old) // that waiter died in its microsecond window
  assert.is(await storage.exclusive(async () => 'entered'), 'entered')
})

test('close is idempotent and later calls are refused', async () => {
  const storage = fsStorage({ root: tempRoot() })
  await storage.put('facts', 'fact-0001', sampleFact(1))
  await storage.close!()
  await storage.close!()
  await refused(() => storage.get('facts', 'fact-0001'), 'UNAVAILABLE', /is closed/)
  await refused(() => storage.exclusive(async () => 1), 'UNAVAILABLE', /is closed/)
})

test.run()
