import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { BUILTIN_STORAGES, openProject, openTarget } from '../src/index.js'
import { STORAGE_TARGETS } from '../src/registry.js'
import { cleanup, tempDir, tempProject } from './helpers.js'

const test = suite(
  'openTarget: a bare location names its storage; queueUrl: a storage that can host a job queue says where',
)
test.after(cleanup)

const kindOf = (target: string) => STORAGE_TARGETS.find((t) => t.matches(target))?.kind

test('a postgres:// URL, a .db/.sqlite/.sqlite3 file, else a folder, decided without loading an adapter', () => {
  assert.is(kindOf('postgres://u:secret@db.example:5432/foundry'), 'postgres')
  assert.is(kindOf('postgresql://db.example/foundry'), 'postgres')
  for (const file of ['runs.db', 'a/runs.sqlite', '/tmp/runs.sqlite3']) assert.is(kindOf(file), 'sqlite', file)
  for (const folder of ['runs', './state/', '/tmp/runs.json']) assert.is(kindOf(folder), 'fs', folder)
  // A URL is never repeated as a path (it may hold a password).
  assert.is(STORAGE_TARGETS.find((t) => t.kind === 'postgres')!.matches('postgres://u:secret@h/db')!.path, undefined)
})

test('a folder opens the folder layout in the folder itself; no job queue beside it', async () => {
  const dir = join(tempDir(), 'state')
  const opened = await openTarget(dir)
  try {
    assert.is(opened.storage.name, 'fs')
    assert.is(opened.title, 'folder')
    assert.is(opened.path, dir)
    assert.is(opened.queueUrl, undefined)
    await opened.storage.put('marbles.runs', 'run-1', { id: 'run-1' })
    assert.ok(existsSync(dir))
  } finally {
    await opened.storage.close?.()
  }
})

test('a .db file opens SQLite in that file; no job queue beside it', async () => {
  const file = join(tempDir(), 'runs.db')
  const opened = await openTarget(file)
  try {
    assert.is(opened.storage.name, 'sqlite')
    assert.equal([opened.title, opened.path, opened.queueUrl], ['SQLite', file, undefined])
    await opened.storage.put('marbles.runs', 'run-1', { id: 'run-1' })
    assert.ok(existsSync(file))
  } finally {
    await opened.storage.close?.()
  }
})

test('a project on the folder layout has no queueUrl; the PostgreSQL descriptor names its database (options, else FOUNDRY_DATABASE_URL)', async () => {
  const project = await openProject({ root: tempProject() })
  try {
    assert.is(project.queueUrl, undefined)
  } finally {
    await project.close()
  }
  const postgres = await BUILTIN_STORAGES.postgres!()
  const site = { root: '/p', dataDir: '/p/.foundry' }
  assert.is(postgres.queueUrl?.({ url: 'postgres://h/one' }, site), 'postgres://h/one')
  const saved = process.env.FOUNDRY_DATABASE_URL
  process.env.FOUNDRY_DATABASE_URL = 'postgres://h/two'
  try {
    assert.is(postgres.queueUrl?.({}, site), 'postgres://h/two')
  } finally {
    if (saved === undefined) delete process.env.FOUNDRY_DATABASE_URL
    else process.env.FOUNDRY_DATABASE_URL = saved
  }
  const fs = await BUILTIN_STORAGES.fs!()
  assert.is(fs.queueUrl, undefined)
})

test.run()
