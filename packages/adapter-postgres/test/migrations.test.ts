import pg from 'pg'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { postgresStorage } from '../src/index.js'
import { migrate } from '../src/migrate.js'
import { STORAGE_SCHEMA_VERSION } from '../src/schema.js'
import { failure, useServer } from './helpers.js'

const server = useServer(test)

async function sql<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<R>(text, values)).rows
  } finally {
    await client.end()
  }
}

test('a fresh database is migrated to the current version, with every table', async () => {
  const url = await server.fresh()
  const storage = await postgresStorage({ url })
  await storage.close?.()
  assert.equal(await sql(url, 'SELECT component, version FROM foundry_schema'), [
    { component: 'storage', version: STORAGE_SCHEMA_VERSION },
  ])
  const tables = (
    await sql<{ t: string }>(url, "SELECT tablename AS t FROM pg_tables WHERE tablename LIKE 'foundry_%' ORDER BY 1")
  ).map((r) => r.t)
  assert.equal(tables, [
    'foundry_changes',
    'foundry_events',
    'foundry_log_ends',
    'foundry_logs',
    'foundry_records',
    'foundry_revisions',
    'foundry_schema',
  ])
})

test('re-opening is idempotent: the data stays, the version stays, nothing is migrated twice', async () => {
  const url = await server.fresh()
  const first = await postgresStorage({ url })
  await first.put('meta', 'kept', 'still here')
  await first.close?.()
  const second = await postgresStorage({ url })
  assert.is(await second.get('meta', 'kept'), 'still here')
  await second.close?.()
  assert.equal(await sql(url, 'SELECT version FROM foundry_schema'), [{ version: STORAGE_SCHEMA_VERSION }])
})

test('eight processes opening a fresh database at once migrate it once', async () => {
  const url = await server.fresh()
  const opened = await Promise.all(Array.from({ length: 8 }, () => postgresStorage({ url })))
  await Promise.all(opened.map((s, i) => s.put('meta', `k${i}`, String(i))))
  assert.is((await opened[0]!.keys('meta')).length, 8)
  await Promise.all(opened.map((s) => s.close?.()))
  assert.equal(await sql(url, 'SELECT count(*)::int AS n FROM foundry_schema'), [{ n: 1 }])
})

test('a database whose schema is newer than this code is refused with a clear CONFLICT, and left unchanged', async () => {
  const url = await server.fresh()
  await (await postgresStorage({ url })).close?.()
  await sql(url, "UPDATE foundry_schema SET version = 99 WHERE component = 'storage'")
  const error = await failure(() => postgresStorage({ url }))
  assert.is(error.code, 'CONFLICT')
  assert.match(
    error.message,
    `the storage schema version 99 is newer than this @foundry/adapter-postgres (${STORAGE_SCHEMA_VERSION}): upgrade @foundry/adapter-postgres`,
  )
  assert.not.match(error.message, new URL(url).password, 'the password is not in the message')
  assert.equal(await sql(url, 'SELECT version FROM foundry_schema'), [{ version: 99 }], 'nothing was written')
})

test('migrate() steps a component version by version, records it, and runs a step only once', async () => {
  const url = await server.fresh()
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const steps = [
      { about: 'a table', sql: 'CREATE TABLE thing (n int)' },
      {
        about: 'a row, by a function',
        sql: async (c: pg.ClientBase) => void (await c.query('INSERT INTO thing VALUES (1)')),
      },
    ]
    assert.is(await migrate(client, 'thing', steps, { target: 1 }), 0, 'found nothing')
    assert.is(await migrate(client, 'thing', steps), 1, 'found version 1, took it to 2')
    assert.is(await migrate(client, 'thing', steps), 2, 'already current')
    assert.equal((await client.query('SELECT n FROM thing')).rows, [{ n: 1 }], 'the second step ran once')
    const error = await failure(() => migrate(client, 'thing', steps.slice(0, 1), { where: 'db' }))
    assert.is(error.code, 'CONFLICT')
    assert.is(
      error.message,
      'db: the thing schema version 2 is newer than this @foundry/adapter-postgres (1): upgrade @foundry/adapter-postgres, or export the data with the newer version',
    )
    // A step that fails rolls back with the others of its run: the version is not recorded.
    const broken = [...steps, { about: 'broken', sql: 'CREATE TABLE thing (n int)' }]
    await migrate(client, 'thing', broken).then(
      () => assert.unreachable('the broken step must throw'),
      (e: Error) => assert.match(e.message, 'already exists'),
    )
    assert.equal((await client.query("SELECT version FROM foundry_schema WHERE component = 'thing'")).rows, [
      { version: 2 },
    ])
  } finally {
    await client.end()
  }
})

test.run()
