import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isFoundryError } from '@foundry/kernel'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { initProject, locateProject, openProject } from '../src/index.js'
import { cleanup, tempDir, tempProject, thrown, tree } from './helpers.js'

const test = suite('initProject: the only way a project is created')
test.after(cleanup)

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as unknown

test('creates .foundry/config.json in the current shape; again, changes nothing', async () => {
  const root = tempDir()
  const first = await initProject({ root })
  const file = join(root, '.foundry', 'config.json')
  assert.equal(first, { root, file, created: true, migrated: false, storage: 'fs' })
  assert.equal(readJson(file), { storage: { kind: 'fs' } })
  assert.equal(tree(root), ['.foundry', join('.foundry', 'config.json')])
  assert.equal(await initProject({ root }), { root, file, created: false, migrated: false, storage: 'fs' })
  assert.is(locateProject({ cwd: root, env: {} }), root)
})

test('a storage for a new project; another storage on an existing one is CONFLICT', async () => {
  const root = tempDir()
  assert.is((await initProject({ root, storage: 'sqlite' })).storage, 'sqlite')
  assert.equal(readJson(join(root, '.foundry', 'config.json')), { storage: { kind: 'sqlite' } })
  assert.is((await initProject({ root, storage: 'sqlite' })).created, false)
  const error = await thrown(() => initProject({ root, storage: 'fs' }))
  assert.ok(isFoundryError(error, 'CONFLICT'))
  assert.match(error.message, `The project already uses storage "sqlite" (${join(root, '.foundry', 'config.json')})`)
})

test('an unknown storage kind, or bad options, for a new project: INVALID_INPUT, and nothing is created', async () => {
  const root = tempDir()
  const file = join(root, '.foundry', 'config.json')
  const unknown = await thrown(() => initProject({ root, storage: 'redis' }))
  assert.ok(isFoundryError(unknown, 'INVALID_INPUT'))
  assert.is(
    unknown.message,
    `Invalid ${file} (new): storage kind "redis" is not installed; installed: fs, sqlite, postgres (register another in "adapters")`,
  )
  assert.is(
    (await thrown(() => initProject({ root, storage: { kind: 'fs', durable: 'no' } }))).message,
    `Invalid storage in ${file} (new): durable must be boolean`,
  )
  assert.equal(tree(root), [])
  assert.equal((await initProject({ root, storage: { kind: 'fs', durable: false } })).storage, 'fs')
  assert.equal(readJson(file), { storage: { kind: 'fs', durable: false } })
})

test('a folder that does not exist yet is created, like git init <dir>', async () => {
  const root = join(tempDir(), 'new', 'project')
  assert.is((await initProject({ root })).created, true)
  assert.ok(existsSync(join(root, '.foundry', 'config.json')))
})

test('on a config.json in the old shape: rewritten in the current shape, other keys kept in order', async () => {
  const root = tempProject({
    profile: 'startup-mvp',
    storage: 'sqlite',
    sqlite: { path: 'data/m.db' },
    retrieval: 'fts',
    indexTokenBudget: 3000,
  })
  const result = await initProject({ root })
  assert.is(result.migrated, true)
  assert.is(result.created, false)
  const file = join(root, '.foundry', 'config.json')
  assert.is(
    readFileSync(file, 'utf8'),
    `${JSON.stringify({ profile: 'startup-mvp', storage: { kind: 'sqlite', path: 'data/m.db' }, retrieval: { kind: 'fts' }, indexTokenBudget: 3000 }, null, 2)}\n`,
  )
  assert.is((await initProject({ root })).migrated, false, 'once is enough')
  const project = await openProject({ root })
  assert.equal(project.adapters.storage, { kind: 'sqlite', options: { path: 'data/m.db' } })
  await project.close()
})

test('in a subfolder of a project: a new, nested project there, and the parent is named', async () => {
  const outer = tempProject()
  const sub = join(outer, 'services', 'billing')
  mkdirSync(sub, { recursive: true })
  const result = await initProject({ root: sub })
  assert.is(result.created, true)
  assert.is(result.parent, outer)
  assert.is(locateProject({ cwd: join(sub), env: {} }), sub)
  assert.is(locateProject({ cwd: join(outer, 'services'), env: {} }), outer)
  assert.is((await initProject({ root: sub })).parent, undefined, 'an existing project names no parent')
})

test.run()
