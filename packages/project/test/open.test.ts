import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { DEFAULT_CONFIG, isFoundryError } from '@foundry/kernel'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { openProject, readProjectConfig } from '../src/index.js'
import { cleanup, flyway, PROJECT_DIST, tempDir, tempProject, thrown, tree, writeConfig } from './helpers.js'

const test = suite('openProject: config.json, the registry, the kernel')
test.after(cleanup)

test('without config.json: the defaults, the folder layout and MiniSearch', async () => {
  const root = tempProject()
  const project = await openProject({ root })
  try {
    assert.is(project.root, root)
    assert.is(project.dataDir, join(root, '.foundry'))
    assert.equal(project.config, DEFAULT_CONFIG)
    assert.equal(project.adapters, { storage: { kind: 'fs', options: {} }, retrieval: { kind: 'bm25', options: {} } })
    assert.is(project.storage.name, 'fs')
    await project.kernel.memory.write(flyway)
    assert.ok(existsSync(join(root, '.foundry', 'memory', 'facts', 'fact-0001.md')))
  } finally {
    await project.close()
  }
})

test('opened from a subfolder, the project above it; from outside any project, NOT_FOUND and nothing created', async () => {
  const root = tempProject()
  mkdirSync(join(root, 'src', 'api'), { recursive: true })
  const project = await openProject({ cwd: join(root, 'src', 'api'), env: {} })
  assert.is(project.root, root)
  await project.close()
  assert.not.ok(existsSync(join(root, 'src', 'api', '.foundry')), 'no stray .foundry/ in the subfolder')

  const plain = tempDir()
  const error = await thrown(() => openProject({ cwd: plain, env: {} }))
  assert.ok(isFoundryError(error, 'NOT_FOUND'))
  assert.is(error.message, `no Foundry project at ${plain} (run foundry init)`)
  assert.is((await thrown(() => openProject({ root: join(plain, 'missing'), env: {} }))).code, 'NOT_FOUND')
  assert.equal(tree(plain), [])
})

test('the current shape: { kind, …options } for storage and retrieval', async () => {
  const root = tempProject({
    storage: { kind: 'sqlite', path: 'data/memory.db' },
    retrieval: { kind: 'fts' },
    indexTokenBudget: 2000,
  })
  const project = await openProject({ root })
  try {
    assert.is(project.storage.name, 'sqlite')
    assert.equal(project.adapters.storage, { kind: 'sqlite', options: { path: 'data/memory.db' } })
    assert.is(project.adapters.retrieval.kind, 'fts')
    assert.is(project.config.indexTokenBudget, 2000)
    await project.kernel.memory.write(flyway)
    assert.is((await project.kernel.memory.search({ query: 'flyway' })).hits[0]?.fact.id, 'fact-0001')
    assert.ok(existsSync(join(root, 'data', 'memory.db')))
    assert.not.ok(existsSync(join(root, '.foundry', 'cache', 'fts.db')), 'FTS5 shares the storage file')
  } finally {
    await project.close()
  }
})

test('the old shape keeps working: "storage": "sqlite", "retrieval": "fts", "sqlite": { "path" }', async () => {
  const root = tempProject({
    storage: 'sqlite',
    retrieval: 'fts',
    sqlite: { path: 'data/memory.db' },
    enforcement: 'warn',
  })
  const read = await readProjectConfig(root)
  assert.ok(read.legacy)
  assert.equal(read.storage, { kind: 'sqlite', options: { path: 'data/memory.db' } })
  assert.equal(read.normalized, {
    storage: { kind: 'sqlite', path: 'data/memory.db' },
    retrieval: { kind: 'fts' },
    enforcement: 'warn',
  })
  const project = await openProject({ root })
  try {
    assert.is(project.storage.name, 'sqlite')
    assert.is(project.config.enforcement, 'warn')
    await project.kernel.memory.write(flyway)
    assert.is((await project.kernel.memory.search({ query: 'liquibase' })).hits.length, 1)
    assert.ok(existsSync(join(root, 'data', 'memory.db')))
  } finally {
    await project.close()
  }
  assert.not.ok((await readProjectConfig(tempProject({ storage: { kind: 'fs' } }))).legacy)
})

test('the default retrieval follows the storage: on PostgreSQL, bm25 ranked as the Postgres retriever; a retrieval named is kept', async () => {
  const url = 'postgres://foundry@localhost:5432/memory'
  const postgres = await readProjectConfig(tempProject({ storage: { kind: 'postgres', url } }))
  assert.equal(postgres.retrieval, { kind: 'bm25', options: { analysis: 'english', ranking: 'postgres' } })
  assert.not.ok('retrieval' in postgres.normalized, 'nothing written into config.json')
  const named = await readProjectConfig(
    tempProject({ storage: { kind: 'postgres', url }, retrieval: { kind: 'bm25' } }),
  )
  assert.equal(named.retrieval, { kind: 'bm25', options: {} })
  const sqlite = await readProjectConfig(tempProject({ storage: { kind: 'sqlite' } }))
  assert.equal(sqlite.retrieval, { kind: 'bm25', options: {} })
})

test("a storage override may change options, never the kind; a retrieval override replaces the file's", async () => {
  const root = tempProject({ storage: { kind: 'sqlite', path: 'data/memory.db' } })
  const other = await thrown(() => openProject({ root, overrides: { storage: 'fs' } }))
  assert.ok(isFoundryError(other, 'CONFLICT'), String(other))
  assert.match(other.message, /storage "sqlite" .*not "fs"/)
  assert.not.ok(existsSync(join(root, '.foundry', 'memory')), 'nothing written to a second store')

  const same = await openProject({ root, overrides: { storage: 'sqlite', retrieval: 'fts' } })
  try {
    assert.equal(same.adapters.storage, { kind: 'sqlite', options: { path: 'data/memory.db' } })
    assert.is(same.adapters.retrieval.kind, 'fts')
    await same.kernel.memory.write(flyway)
    assert.is((await same.kernel.memory.search({ query: 'liquibase' })).hits.length, 1)
  } finally {
    await same.close()
  }
  const fts = await openProject({ root: tempProject(), overrides: { retrieval: 'fts' } })
  try {
    await fts.kernel.memory.write(flyway)
    assert.is((await fts.kernel.memory.search({ query: 'liquibase' })).hits.length, 1)
    assert.ok(existsSync(join(fts.root, '.foundry', 'cache', 'fts.db')), 'FTS5 beside the folder layout, in the cache')
  } finally {
    await fts.close()
  }
})

test('an unknown kind is INVALID_INPUT naming the installed kinds', async () => {
  const root = tempProject({ storage: { kind: 'redis' } })
  const file = join(root, '.foundry', 'config.json')
  const error = await thrown(() => openProject({ root }))
  assert.ok(isFoundryError(error, 'INVALID_INPUT'))
  assert.is(
    error.message,
    `Invalid ${file}: storage kind "redis" is not installed; installed: fs, sqlite, postgres (register another in "adapters")`,
  )
  writeConfig(root, { retrieval: 'vector' })
  assert.is(
    (await thrown(() => openProject({ root }))).message,
    `Invalid ${file}: retrieval kind "vector" is not installed; installed: bm25, minisearch, fts, postgres (register another in "adapters")`,
  )
})

test("adapter options are checked by the adapter's own schema, before anything opens", async () => {
  const root = tempProject({ storage: { kind: 'fs', durable: 'yes' } })
  const file = join(root, '.foundry', 'config.json')
  assert.is((await thrown(() => openProject({ root }))).message, `Invalid storage in ${file}: durable must be boolean`)
  writeConfig(root, { storage: { kind: 'sqlite', pth: 'x.db' } })
  assert.is(
    (await thrown(() => openProject({ root }))).message,
    `Invalid storage in ${file}: unknown property "pth" (remove it)`,
  )
  writeConfig(root, { retrieval: { kind: 'minisearch', fuzzy: 2 } })
  assert.match(
    (await thrown(() => openProject({ root }))).message,
    `Invalid retrieval in ${file}: fuzzy must be <= 0.5`,
  )
  writeConfig(root, { storage: 42 })
  assert.is(
    (await thrown(() => openProject({ root }))).message,
    `Invalid ${file}: storage must be { "kind": "<adapter>", …options } (e.g. { "kind": "fs" }), got 42`,
  )
  assert.equal(tree(join(root, '.foundry')), ['config.json'], 'nothing opened, nothing written')
})

test('config.json that is not JSON, or breaks a kernel key, is INVALID_INPUT naming the file and the key', async () => {
  const root = tempProject('{"indexTokenBudget": 4000,}')
  const file = join(root, '.foundry', 'config.json')
  assert.match((await thrown(() => openProject({ root }))).message, `Invalid ${file}: not JSON (`)
  writeConfig(root, { memoryRetrieval: { maxFacts: 100 } })
  assert.is(
    (await thrown(() => openProject({ root }))).message,
    `Invalid ${file}: memoryRetrieval.maxFacts must be <= 25`,
  )
  writeConfig(root, { adapters: './one.mjs' })
  assert.match(
    (await thrown(() => openProject({ root }))).message,
    `Invalid ${file}: adapters must be a list of module paths`,
  )
})

test('a project on the folder layout never loads the native SQLite module', () => {
  const loads = (root: string) =>
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { openProject } = await import(${JSON.stringify(PROJECT_DIST)})
         const project = await openProject({ root: ${JSON.stringify(root)} })
         await project.kernel.memory.search({ query: 'anything' })
         await project.close()
         process.stdout.write(String(process.report.getReport().sharedObjects.some((s) => s.includes('better_sqlite3'))))`,
      ],
      { encoding: 'utf8' },
    )
  assert.is(loads(tempProject()), 'false')
  assert.is(loads(tempProject({ storage: { kind: 'sqlite' } })), 'true')
  assert.is(loads(tempProject({ storage: 'sqlite' })), 'true')
})

test.run()
