import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { isFoundryError } from '@foundry/kernel'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { locateProject } from '../src/index.js'
import { findProject, findProjectRoot } from '../src/find.js'
import { cleanup, tempDir, tempProject, thrown, tree } from './helpers.js'

const test = suite('locateProject: like git, and never creating anything')
test.after(cleanup)

test('walks up from a subfolder to the nearest folder holding .foundry/', () => {
  const root = tempProject()
  const deep = join(root, 'src', 'billing', 'invoices')
  mkdirSync(deep, { recursive: true })
  assert.is(locateProject({ cwd: deep, env: {} }), root)
  assert.is(locateProject({ cwd: root, env: {} }), root)
  assert.is(findProjectRoot(deep), root)
  // A nested project is nearer: it wins below it, the outer one above it.
  mkdirSync(join(root, 'src', 'billing', '.foundry'))
  assert.is(locateProject({ cwd: deep, env: {} }), join(root, 'src', 'billing'))
  assert.is(locateProject({ cwd: join(root, 'src'), env: {} }), root)
})

test('no project at or above cwd: NOT_FOUND naming the folder and the fix, nothing created', async () => {
  const dir = tempDir()
  const sub = join(dir, 'a', 'b')
  mkdirSync(sub, { recursive: true })
  const error = await thrown(() => locateProject({ cwd: sub, env: {} }))
  assert.ok(isFoundryError(error, 'NOT_FOUND'))
  assert.is(error.message, `no Foundry project at ${sub} (run foundry init)`)
  assert.equal(tree(dir), ['a', join('a', 'b')])
  assert.is(findProject({ cwd: sub, env: {} }), undefined)
})

test('--root must name a project itself: a folder without .foundry/, or none at all, is NOT_FOUND and is not created', async () => {
  const plain = tempDir()
  const missing = join(tempDir(), 'no', 'such', 'dir')
  for (const root of [plain, missing]) {
    const error = await thrown(() => locateProject({ root, env: {} }))
    assert.ok(isFoundryError(error, 'NOT_FOUND'), root)
    assert.is(error.message, `no Foundry project at ${root} (run foundry init)`)
  }
  assert.not.ok(existsSync(missing))
  assert.equal(tree(plain), [])
  // A subfolder of a project is not the project: --root does not walk up.
  const project = tempProject()
  mkdirSync(join(project, 'src'))
  assert.is((await thrown(() => locateProject({ root: join(project, 'src'), env: {} }))).code, 'NOT_FOUND')
})

test('FOUNDRY_ROOT names the project from anywhere; --root wins over it; it must be a project too', async () => {
  const project = tempProject()
  const other = tempProject()
  const elsewhere = tempDir()
  assert.is(locateProject({ cwd: elsewhere, env: { FOUNDRY_ROOT: project } }), project)
  assert.is(locateProject({ cwd: elsewhere, root: other, env: { FOUNDRY_ROOT: project } }), other)
  const error = await thrown(() => locateProject({ cwd: project, env: { FOUNDRY_ROOT: elsewhere } }))
  assert.is(error.message, `no Foundry project at ${elsewhere} (run foundry init)`)
})

test('findProject walks up from a fallback when nothing is above cwd (the hooks pass CLAUDE_PROJECT_DIR)', () => {
  const project = tempProject()
  const elsewhere = tempDir()
  assert.is(findProject({ cwd: elsewhere, env: {}, fallback: join(project) }), project)
  assert.is(findProject({ cwd: elsewhere, env: {}, fallback: elsewhere }), undefined)
  assert.is(findProject({ cwd: elsewhere, env: {} }), undefined)
})

test.run()
