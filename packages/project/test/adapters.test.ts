import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { isFoundryError } from '@foundry/kernel'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { openProject } from '../src/index.js'
import { cleanup, flyway, KERNEL_URL, tempProject, thrown, writeConfig } from './helpers.js'

/**
 * A third-party adapter module as a project would keep it: a memory storage that names itself after
 * its options and the site, and a retriever that finds the first fact for any query. It imports the
 * kernel by URL here, as a package would by name.
 */
const MODULE = `
import { memoryStorage } from ${JSON.stringify(KERNEL_URL)}
export const scratchStorage = {
  kind: 'scratch',
  description: 'everything in memory',
  options: { type: 'object', properties: { label: { type: 'string' } }, additionalProperties: false },
  open: (options, site) => ({ ...memoryStorage(), name: 'scratch:' + (options.label ?? '') + ':' + site.dataDir }),
}
export const firstRetriever = {
  kind: 'first',
  description: 'answers every query with fact-0001',
  options: { type: 'object', additionalProperties: false },
  open: () => ({ name: 'first', revision: async () => undefined, apply: async () => {}, search: async () => [{ id: 'fact-0001', score: 1 }] }),
}
export const notAnAdapter = { kind: 'nope' }
export const VERSION = 3
`

const test = suite('"adapters": third-party adapters registered in config.json, with no Foundry change')
test.after(cleanup)

test('a module path relative to the root registers its storages and retrievers for that project', async () => {
  const root = tempProject({
    adapters: ['./adapters/scratch.mjs'],
    storage: { kind: 'scratch', label: 'a' },
    retrieval: { kind: 'first' },
  })
  mkdirSync(join(root, 'adapters'))
  writeFileSync(join(root, 'adapters', 'scratch.mjs'), MODULE)
  const project = await openProject({ root })
  try {
    assert.is(project.storage.name, `scratch:a:${join(root, '.foundry')}`)
    assert.equal(project.adapters, {
      storage: { kind: 'scratch', options: { label: 'a' } },
      retrieval: { kind: 'first', options: {} },
    })
    await project.kernel.memory.write(flyway)
    assert.equal(
      (await project.kernel.memory.search({ query: 'anything at all' })).hits.map((h) => h.fact.id),
      ['fact-0001'],
    )
  } finally {
    await project.close()
  }
  // Its options are checked by its own schema; its kinds join the installed ones in messages.
  const file = writeConfig(root, { adapters: ['./adapters/scratch.mjs'], storage: { kind: 'scratch', label: 7 } })
  assert.is((await thrown(() => openProject({ root }))).message, `Invalid storage in ${file}: label must be string`)
  writeConfig(root, { adapters: ['./adapters/scratch.mjs'], storage: { kind: 'redis' } })
  assert.is(
    (await thrown(() => openProject({ root }))).message,
    `Invalid ${file}: storage kind "redis" is not installed; installed: fs, sqlite, postgres, first, scratch (register another in "adapters")`,
  )
})

test('a package name resolves from the project root', async () => {
  const root = tempProject({ adapters: ['scratch-adapter'], storage: { kind: 'scratch' } })
  const pkg = join(root, 'node_modules', 'scratch-adapter')
  mkdirSync(pkg, { recursive: true })
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name: 'scratch-adapter', type: 'module', exports: { '.': { default: './index.js' } } }),
  )
  writeFileSync(join(pkg, 'index.js'), MODULE)
  const project = await openProject({ root })
  assert.is(project.storage.name, `scratch::${join(root, '.foundry')}`)
  await project.close()
})

test('a module that cannot load, exports no descriptor, or reuses a kind is an error naming it', async () => {
  const root = tempProject()
  writeFileSync(join(root, 'empty.mjs'), 'export const x = 1\n')
  writeFileSync(
    join(root, 'clash.mjs'),
    `export const fs = { kind: 'fs', description: '', options: {}, open: () => ({}) }\n`,
  )
  writeFileSync(join(root, 'scratch.mjs'), MODULE)
  const file = writeConfig(root, { adapters: ['./missing.mjs'] })
  const missing = await thrown(() => openProject({ root }))
  assert.ok(isFoundryError(missing, 'INVALID_INPUT'))
  assert.match(missing.message, `Invalid ${file}: adapters: cannot load "./missing.mjs" from ${root}: `)
  writeConfig(root, { adapters: ['./empty.mjs'] })
  assert.is(
    (await thrown(() => openProject({ root }))).message,
    `Invalid ${file}: adapters: "./empty.mjs" exports no adapter descriptor (defineStorage or defineRetriever of @foundry/kernel)`,
  )
  writeConfig(root, { adapters: ['./clash.mjs'] })
  const clash = await thrown(() => openProject({ root }))
  assert.ok(isFoundryError(clash, 'CONFLICT'))
  assert.is(
    clash.message,
    `Invalid ${file}: adapters: "./clash.mjs" registers kind "fs", already registered by a built-in adapter; rename its kind`,
  )
  writeConfig(root, { adapters: ['./scratch.mjs'], storage: { kind: 'first' } })
  assert.is(
    (await thrown(() => openProject({ root }))).message,
    'Adapter "first" is not a Storage: name it in "retrieval", or fix its open()',
  )
})

test('a descriptor that names its seam (defineStorage, defineRetriever) is installed for that seam only', async () => {
  const root = tempProject()
  writeFileSync(
    join(root, 'seams.mjs'),
    MODULE.replace("kind: 'scratch',", "seam: 'storage', kind: 'scratch',").replace(
      "kind: 'first',",
      "seam: 'retrieval', kind: 'first',",
    ),
  )
  const file = writeConfig(root, { adapters: ['./seams.mjs'], storage: { kind: 'first' } })
  assert.is(
    (await thrown(() => openProject({ root }))).message,
    `Invalid ${file}: storage kind "first" is not installed; installed: fs, sqlite, postgres, scratch (register another in "adapters")`,
  )
  writeConfig(root, { adapters: ['./seams.mjs'], retrieval: { kind: 'scratch' } })
  assert.is(
    (await thrown(() => openProject({ root }))).message,
    `Invalid ${file}: retrieval kind "scratch" is not installed; installed: bm25, minisearch, fts, postgres, first (register another in "adapters")`,
  )
})

test("a storage descriptor may open a StorageDriver: the project wraps it in the kernel's Storage, checks and events included", async () => {
  const adapterApi = JSON.stringify(KERNEL_URL.replace(/index\.js$/, 'adapter/index.js'))
  const root = tempProject({ adapters: ['./driven.mjs'], storage: { kind: 'driven' } })
  writeFileSync(
    join(root, 'driven.mjs'),
    `import { memoryDriver } from ${adapterApi}\n` +
      `export const driven = { kind: 'driven', description: 'a bare driver', options: { type: 'object' }, open: () => ({ ...memoryDriver(), name: 'driven' }) }\n` +
      `export const half = { kind: 'half', description: 'a driver without logs', options: { type: 'object' }, open: () => { const { readLog, ...rest } = memoryDriver(); return rest } }\n`,
  )
  const project = await openProject({ root })
  try {
    assert.is(project.storage.name, 'driven')
    assert.is(
      (await project.kernel.memory.write({ title: 'Invoices are immutable', body: 'Once sent.', type: 'domain' })).id,
      'fact-0001',
    )
    assert.ok(
      (await project.storage.readEvents()).some((e) => e.kind === 'memory_write'),
      'events kept through the reserved log',
    )
    assert.is((await thrown(() => project.storage.appendLog('../escape', ['x']))).code, 'INVALID_INPUT')
  } finally {
    await project.close()
  }
  writeConfig(root, { adapters: ['./driven.mjs'], storage: { kind: 'half' } })
  assert.is(
    (await thrown(() => openProject({ root }))).message,
    'Adapter "half" is not a Storage: name it in "retrieval", or fix its open()',
  )
})

test.run()
