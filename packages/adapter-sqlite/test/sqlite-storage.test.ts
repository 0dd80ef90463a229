import { readFileSync, writeFileSync } from 'node:fs'
import type { StorageProblem } from '@foundry/kernel'
import { sampleFact } from '@foundry/kernel/testing'
import Database from 'better-sqlite3'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { ftsRetriever, sqliteStorage } from '../src/index.js'
import { SCHEMA_VERSION } from '../src/schema.js'
import { MIGRATIONS, migrate, schemaVersion } from '../src/schema.js'
import { startChild, waitForLine } from './child.js'
import { failure, tempDb } from './helpers.js'

test('a file from an older schema version is migrated, keeping its records', async () => {
  const path = tempDb()
  const old = new Database(path)
  migrate(old, path, 1)
  const fact = sampleFact(1)
  old
    .prepare('INSERT INTO records (collection, key, value) VALUES (?, ?, ?)')
    .run('facts', fact.id, JSON.stringify(fact))
  old.close()

  const storage = sqliteStorage({ path })
  assert.equal(await storage.get('facts', fact.id), fact)
  await storage.close?.()
  const db = new Database(path)
  assert.is(schemaVersion(db), SCHEMA_VERSION)
  db.close()
  const retriever = ftsRetriever({ path })
  await retriever.apply({
    revision: '1',
    reset: true,
    upsert: [{ id: fact.id, title: fact.title, body: fact.body, tags: fact.tags, type: fact.type, scope: fact.scope }],
    remove: [],
  })
  assert.is(
    (await retriever.search({ text: 'apostrophe', limit: 5 }))[0]?.id,
    fact.id,
    'the tables the migration added work',
  )
  await retriever.close?.()
})

test('a file from before the logs table gains it on opening, its records, events and FTS state intact', async () => {
  const path = tempDb()
  const before = MIGRATIONS.findIndex((step) => step.sql.includes('CREATE TABLE logs'))
  assert.ok(before > 0, 'a step adds the logs table')
  const old = new Database(path)
  migrate(old, path, before)
  const fact = sampleFact(1)
  const insert = old.prepare('INSERT INTO records (collection, key, value) VALUES (?, ?, ?)')
  insert.run('facts', fact.id, JSON.stringify(fact))
  insert.run('meta', 'index', '# index')
  const event = { ts: '2026-01-01T00:00:00.000Z', kind: 'marbles.run_started', data: { run: 'r1' } }
  old.prepare('INSERT INTO events (event) VALUES (?)').run(JSON.stringify(event))
  old.prepare('INSERT INTO fts_state (key, value) VALUES (?, ?)').run('revision', '"7.abc"')
  assert.is(old.prepare(`SELECT count(*) FROM sqlite_schema WHERE name = 'logs'`).pluck().get(), 0, 'no logs table yet')
  old.close()

  const storage = sqliteStorage({ path })
  assert.equal(await storage.get('facts', fact.id), fact)
  assert.is(await storage.get('meta', 'index'), '# index')
  assert.equal(await storage.readEvents(), [event])
  assert.equal(await storage.logs(), [], 'the new table starts empty')
  assert.is(await storage.appendLog('marbles/r1', ['started']), 1)
  assert.equal(await storage.readLog('marbles/r1', 0), { entries: ['started'], cursor: 1 })
  await storage.close?.()
  const db = new Database(path)
  assert.is(schemaVersion(db), SCHEMA_VERSION)
  assert.equal(
    db.prepare('SELECT value FROM fts_state').pluck().all(),
    ['"7.abc"'],
    "the retriever's tables are untouched",
  )
  db.close()
})

test('a file with a newer schema version is refused with CONFLICT naming the file and both versions', async () => {
  const path = tempDb()
  const db = new Database(path)
  db.pragma(`user_version = ${SCHEMA_VERSION + 1}`)
  db.close()
  const error = await failure(() => sqliteStorage({ path }))
  assert.is(error.code, 'CONFLICT')
  assert.ok(error.message.includes(path), error.message)
  assert.ok(
    error.message.includes(`version ${SCHEMA_VERSION + 1}`) && error.message.includes(`the ${SCHEMA_VERSION} this`),
    error.message,
  )
})

test('an SQLite file Foundry did not create is refused with CONFLICT', async () => {
  const path = tempDb()
  const db = new Database(path)
  db.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY)')
  db.close()
  const error = await failure(() => sqliteStorage({ path }))
  assert.is(error.code, 'CONFLICT')
  assert.ok(error.message.includes(path), error.message)
})

test('a file that is not SQLite is refused with CORRUPT naming the file', async () => {
  const path = tempDb()
  writeFileSync(path, '---\ntitle: this is a markdown file, not a database\n---\n'.repeat(200))
  for (const open of [() => sqliteStorage({ path }), () => ftsRetriever({ path })]) {
    const error = await failure(open)
    assert.is(error.code, 'CORRUPT')
    assert.ok(error.message.startsWith(path), error.message)
  }
})

test('a damaged database reports CORRUPT naming the file', async () => {
  const path = tempDb()
  const storage = sqliteStorage({ path })
  for (let n = 1; n <= 200; n++) await storage.put('facts', sampleFact(n).id, sampleFact(n))
  await storage.close?.()
  const bytes = readFileSync(path)
  // Keep page 1 (the header and schema), scribble over every page after it.
  for (let i = 4096; i < bytes.length; i++) bytes[i] = (i * 7919) & 0xff
  writeFileSync(path, bytes)
  const error = await failure(async () => {
    const damaged = sqliteStorage({ path })
    try {
      await damaged.list('facts')
    } finally {
      await damaged.close?.()
    }
  })
  assert.is(error.code, 'CORRUPT')
  assert.ok(error.message.includes(path), error.message)
})

test('a record that is not valid JSON or breaks its schema is CORRUPT to get and left out of list', async () => {
  const database = new Database(tempDb())
  const storage = sqliteStorage({ database })
  await storage.put('facts', 'fact-0001', sampleFact(1))
  await storage.put('facts', 'fact-0002', sampleFact(2))
  database.prepare(`UPDATE records SET value = '{"id": "fact-0002", "title": ' WHERE key = 'fact-0002'`).run()
  database
    .prepare('INSERT INTO records (collection, key, value) VALUES (?, ?, ?)')
    .run('facts', 'fact-0003', JSON.stringify({ ...sampleFact(3), type: 'rumour' }))
  const error = await failure(() => storage.get('facts', 'fact-0002'))
  assert.is(error.code, 'CORRUPT')
  assert.ok(error.message.includes(`${database.name}#facts/fact-0002`), error.message)
  const problems: StorageProblem[] = []
  const listed = await storage.list('facts', { onProblem: (p) => problems.push(p) })
  assert.equal(
    listed.map((f) => f.id),
    ['fact-0001'],
  )
  assert.equal(
    problems.map((p) => p.key),
    ['fact-0002', 'fact-0003'],
  )
  assert.ok(problems[1]!.message.includes('type'), problems[1]!.message)
  await storage.close?.()
  assert.ok(database.open, 'a database the caller passed stays open')
  database.close()
})

test('a write waits while another process holds the write lock, then succeeds after it', async () => {
  const path = tempDb()
  const storage = sqliteStorage({ path, timeout: 20_000 })
  await storage.appendEvent({ ts: '2026-01-01T00:00:00.000Z', kind: 'session_end', data: { by: 'first' } })
  const holder = startChild('hold-lock', [path])
  await waitForLine(holder, 'locked')
  let told = false
  let enteredBeforeCommit: boolean | undefined
  const section = storage.exclusive(async () => {
    enteredBeforeCommit = !told
    // Inside the section, the holder's committed write is visible: the section ran after it.
    return (await storage.readEvents()).map((e) => e.data?.by)
  })
  await new Promise((resolve) => setImmediate(resolve)) // every pending callback has run: a section that did not wait has started
  told = true
  holder.stdin.write('commit\n')
  assert.equal(await section, ['first', 'holder'])
  assert.is(enteredBeforeCommit, false, 'the section did not start while the other process held the lock')
  await storage.close?.()
})

test('a write gives up with UNAVAILABLE when the lock is not released in time', async () => {
  const path = tempDb()
  const storage = sqliteStorage({ path, timeout: 300 })
  const holder = startChild('hold-lock', [path])
  await waitForLine(holder, 'locked')
  try {
    const error = await failure(() => storage.put('meta', 'index', 'text'))
    assert.is(error.code, 'UNAVAILABLE')
    assert.ok(error.message.includes(path) && error.message.includes('300 ms'), error.message)
    assert.is(await storage.get('meta', 'index'), undefined)
    assert.equal((await storage.readEvents()).length, 0, 'the holder has not committed yet')
  } finally {
    holder.stdin.write('commit\n')
    await new Promise((resolve) => holder.on('close', resolve))
  }
  await storage.put('meta', 'index', 'text')
  assert.is(await storage.get('meta', 'index'), 'text', 'writes work again once the lock is free')
  await storage.close?.()
})

test('a section that throws rolls back its writes, and its revision token is never reused', async () => {
  const storage = sqliteStorage({ path: tempDb() })
  await storage.put('facts', 'fact-0001', sampleFact(1))
  const before = await storage.revision('facts')
  let inside = ''
  const error = await storage
    .exclusive(async () => {
      await storage.put('facts', 'fact-0002', sampleFact(2))
      inside = await storage.revision('facts')
      throw new Error('planned failure')
    })
    .catch((e: Error) => e)
  assert.is((error as Error).message, 'planned failure')
  assert.is(await storage.get('facts', 'fact-0002'), undefined, 'rolled back')
  assert.is(await storage.revision('facts'), before, 'revision back to before the section')
  assert.is(await storage.changes!('facts', inside), undefined, 'the rolled-back token names nothing')
  await storage.put('facts', 'fact-0003', sampleFact(3))
  assert.not.equal(
    await storage.revision('facts'),
    inside,
    'the next write has a new token although its number is the same',
  )
  assert.equal(await storage.changes!('facts', before), ['fact-0003'])
  await storage.close?.()
})

test('reads outside a section never see its uncommitted writes', async () => {
  const storage = sqliteStorage({ path: tempDb() })
  const order: string[] = []
  let release!: () => void
  let written!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const inside = new Promise<void>((resolve) => (written = resolve))
  const section = storage.exclusive(async () => {
    await storage.put('meta', 'index', 'new')
    order.push('written')
    written()
    await gate
    order.push('commit')
  })
  await inside
  const read = storage.get('meta', 'index').then((value) => (order.push(`read ${value}`), value))
  await new Promise((resolve) => setImmediate(resolve)) // every pending callback has run: a read that did not wait has answered
  release()
  await section
  assert.is(await read, 'new')
  assert.equal(order, ['written', 'commit', 'read new'], 'the outside read waited for the commit')
  await storage.close?.()
})

test('exclusive sections do not nest: UNSUPPORTED instead of a deadlock', async () => {
  const storage = sqliteStorage({ path: tempDb() })
  const error = await failure(() => storage.exclusive(() => storage.exclusive(async () => 1)))
  assert.is(error.code, 'UNSUPPORTED')
  assert.is(await storage.exclusive(async () => 'free'), 'free', 'released after the refusal')
  await storage.close?.()
})

test('changes reach back changeLogSize writes; older tokens answer undefined', async () => {
  const storage = sqliteStorage({ path: tempDb(), changeLogSize: 5 })
  await storage.put('meta', 'k0', 'x')
  const first = await storage.revision('meta')
  for (let i = 1; i <= 20; i++) await storage.put('meta', `k${i}`, 'x')
  assert.is(await storage.changes!('meta', first), undefined, 'trimmed away')
  const recent = await storage.revision('meta')
  await storage.put('meta', 'k21', 'x')
  assert.equal(await storage.changes!('meta', recent), ['k21'])
  assert.equal(await storage.changes!('facts', '0'), [], 'an untouched collection has no changes since 0')
  await storage.close?.()
})

test('open collections, logs, events and revisions survive closing and reopening the file', async () => {
  const path = tempDb()
  const first = sqliteStorage({ path })
  const run = { id: 'run-1', steps: [{ name: 'plan', ok: true }], cost: 0.25, note: null }
  await first.put('marbles.runs', 'run-1', run)
  await first.put('marbles.runs', 'archive/run-0', { id: 'run-0' }, { durability: 'relaxed' })
  await first.put('other-tool.state', 'cursor', 42)
  await first.put('facts', 'fact-0001', sampleFact(1))
  await first.appendLog('marbles/run-1', ['{"step":"plan"}', 'line\nbreak'])
  await first.appendLog('marbles/run-1', ['done'], { durability: 'relaxed' })
  await first.appendEvent({ ts: '2026-01-01T00:00:00.000Z', kind: 'marbles.run_finished', data: { run: 'run-1' } })
  const revision = await first.revision('marbles.runs')
  await first.close?.()

  const second = sqliteStorage({ path })
  assert.equal(await second.get('marbles.runs', 'run-1'), run)
  assert.equal(await second.get('other-tool.state', 'cursor'), 42)
  assert.equal(await second.keys('marbles.runs'), ['archive/run-0', 'run-1'])
  assert.equal(await second.collections(), ['facts', 'marbles.runs', 'other-tool.state'])
  assert.equal(await second.logs(), ['marbles/run-1'])
  assert.is(await second.logEnd('marbles/run-1'), 3)
  assert.equal(await second.readLog('marbles/run-1', 1), { entries: ['line\nbreak', 'done'], cursor: 3 })
  assert.equal(
    (await second.readEvents()).map((e) => e.kind),
    ['marbles.run_finished'],
    "an event of a consumer's kind",
  )
  assert.is(await second.revision('marbles.runs'), revision, "the revision token is the file's, not the process's")
  await second.delete('marbles.runs', 'run-1')
  assert.equal(await second.changes!('marbles.runs', revision), ['run-1'], 'changes reach back across the reopen')
  assert.is(await second.appendLog('marbles/run-1', ['again']), 4, 'appends continue after the last entry')
  await second.close?.()
})

test("durability is the caller's: relaxed writes commit without a sync, durable ones (the default) with one", async () => {
  // The sync level of the write's transaction is the one trace of durability short of cutting the power.
  const database = new Database(tempDb())
  const storage = sqliteStorage({ database })
  const sync = () => database.pragma('synchronous', { simple: true })
  const FULL = 2
  const NORMAL = 1
  await storage.put('meta', 'retriever/x/head', 'cache', { durability: 'relaxed' })
  assert.is(sync(), NORMAL, 'a relaxed put')
  await storage.put('meta', 'stats', '{}')
  assert.is(sync(), FULL, 'any meta key is durable by default: the adapter no longer guesses which are caches')
  await storage.appendLog('j', ['a'], { durability: 'relaxed' })
  assert.is(sync(), NORMAL, 'a relaxed append')
  await storage.appendLog('j', ['b'])
  assert.is(sync(), FULL, 'a default append')
  await storage.delete('meta', 'stats', { durability: 'relaxed' })
  assert.is(sync(), NORMAL, 'a relaxed delete')
  await storage.put('marbles.runs', 'r', { n: 1 }, { durability: 'durable' })
  assert.is(sync(), FULL, 'a durable put to an open collection')
  await storage.close?.()
  database.close()
})

test('locate names the file, collection and key; close is idempotent and later calls are refused', async () => {
  const path = tempDb()
  const storage = sqliteStorage({ path })
  assert.is(storage.locate('facts', 'fact-0001'), `${path}#facts/fact-0001`)
  assert.is(storage.locate('artifacts', 'audit/appsec-reviewer'), `${path}#artifacts/audit/appsec-reviewer`)
  await storage.close?.()
  await storage.close?.()
  assert.is((await failure(() => storage.get('facts', 'fact-0001'))).code, 'UNAVAILABLE')
})

test('a storage and a retriever sharing one database share its transactions', async () => {
  const database = new Database(tempDb())
  const storage = sqliteStorage({ database })
  const retriever = ftsRetriever({ database })
  const doc = {
    id: 'fact-0001',
    title: 'Payments use Stripe',
    body: 'Cards only.',
    tags: [],
    type: 'decision' as const,
    scope: 'project',
  }
  await storage
    .exclusive(async () => {
      await storage.put('facts', 'fact-0001', sampleFact(1))
      await retriever.apply({ revision: 'r1', reset: true, upsert: [doc], remove: [] })
      throw new Error('undo both')
    })
    .catch(() => undefined)
  assert.is(await retriever.revision(), undefined, 'the retriever change rolled back with the section')
  assert.equal(await retriever.search({ text: 'stripe', limit: 5 }), [])
  await storage.exclusive(() => retriever.apply({ revision: 'r2', reset: true, upsert: [doc], remove: [] }))
  assert.is(await retriever.revision(), 'r2')
  await retriever.close?.()
  await storage.close?.()
  database.close()
})

test.run()
