import { execFileSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DEFAULT_CONFIG, isFoundryError } from '@foundry/kernel'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { openProject, readConfig } from '../src/config.js'
import { cleanup, flyway, tempProject } from './helpers.js'

const test = suite('config: the composition root')
test.after(cleanup)

test('a missing config.json gives the defaults and the folder storage', async () => {
  const root = tempProject()
  assert.equal(await readConfig(root), DEFAULT_CONFIG)
  const project = await openProject({ root })
  try {
    assert.is(project.root, root)
    assert.is(project.kernel.storage.name, 'fs')
    assert.is(project.kernel.retriever.name, 'minisearch')
    await project.kernel.memory.write(flyway)
    assert.ok(existsSync(join(root, '.foundry', 'memory', 'facts', 'fact-0001.md')))
  } finally {
    await project.close()
  }
})

test('config.json chooses SQLite at sqlite.path (relative to the root) and FTS5 retrieval', async () => {
  const root = tempProject({ storage: 'sqlite', retrieval: 'fts', sqlite: { path: 'data/memory.db' } })
  const project = await openProject({ root })
  try {
    assert.is(project.kernel.storage.name, 'sqlite')
    assert.is(project.kernel.retriever.name, 'fts')
    await project.kernel.memory.write(flyway)
    const { hits } = await project.kernel.memory.search({ query: 'flyway' })
    assert.is(hits[0]?.fact.id, 'fact-0001')
    assert.ok(existsSync(join(root, 'data', 'memory.db')))
  } finally {
    await project.close()
  }
})

test('options override config.json', async () => {
  const root = tempProject({ storage: 'sqlite' })
  const project = await openProject({ root, storage: 'fs', retrieval: 'fts' })
  try {
    assert.is(project.config.storage, 'fs')
    assert.is(project.kernel.storage.name, 'fs')
    assert.is(project.kernel.retriever.name, 'fts')
    await project.kernel.memory.write(flyway)
    assert.is((await project.kernel.memory.search({ query: 'liquibase' })).hits.length, 1)
    assert.ok(existsSync(join(root, '.foundry', 'cache', 'fts.db')))
  } finally {
    await project.close()
  }
})

test('an invalid config.json throws INVALID_INPUT naming the file and the key', async () => {
  const root = tempProject({ storage: 'postgres' })
  const file = join(root, '.foundry', 'config.json')
  try {
    await openProject({ root })
    assert.unreachable()
  } catch (error) {
    assert.ok(isFoundryError(error, 'INVALID_INPUT'))
    assert.is((error as Error).message, `Invalid ${file}: storage must be one of fs | sqlite`)
  }
  writeFileSync(file, '{"indexTokenBudget": 4000,}')
  try {
    await readConfig(root)
    assert.unreachable()
  } catch (error) {
    assert.match((error as Error).message, `Invalid ${file}: not JSON (`)
  }
})

test('a project on the folder layout never loads the native SQLite module', () => {
  const config = fileURLToPath(new URL('../dist/config.js', import.meta.url))
  const loads = (root: string) =>
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { openProject } = await import(${JSON.stringify(config)})
         const project = await openProject({ root: ${JSON.stringify(root)} })
         await project.kernel.memory.search({ query: 'anything' })
         await project.close()
         process.stdout.write(String(process.report.getReport().sharedObjects.some((s) => s.includes('better_sqlite3'))))`,
      ],
      { encoding: 'utf8' },
    )
  assert.is(loads(tempProject()), 'false')
  assert.is(loads(tempProject({ storage: 'sqlite' })), 'true')
})

test.run()
