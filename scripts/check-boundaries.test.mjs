// check-boundaries.mjs on fixture trees written to a temporary folder: a good tree passes; each bad
// edge (package.json or a src import) is named, and the script exits 1.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { checkBoundaries } from './check-boundaries.mjs'

const SCRIPT = new URL('./check-boundaries.mjs', import.meta.url).pathname

/** A tree of packages: `{ dir: { name, dependencies?, devDependencies?, src?: { file: text } } }`. */
function tree(packages) {
  const root = mkdtempSync(join(tmpdir(), 'foundry-boundaries-'))
  for (const [dir, { src = {}, ...manifest }] of Object.entries(packages)) {
    mkdirSync(join(root, 'packages', dir, 'src'), { recursive: true })
    writeFileSync(join(root, 'packages', dir, 'package.json'), JSON.stringify(manifest))
    for (const [file, text] of Object.entries(src)) writeFileSync(join(root, 'packages', dir, 'src', file), text)
  }
  return root
}

const dep = (...names) => Object.fromEntries(names.map((n) => [n, 'workspace:*']))
const GOOD = {
  kernel: { name: '@foundry/kernel' },
  'adapter-fs': { name: '@foundry/adapter-fs', dependencies: dep('@foundry/kernel') },
  project: { name: '@foundry/project', dependencies: dep('@foundry/kernel', '@foundry/adapter-fs') },
  server: { name: '@foundry/server', dependencies: dep('@foundry/kernel') },
  mcp: {
    name: '@foundry/mcp',
    dependencies: dep('@foundry/kernel', '@foundry/project', '@foundry/server'),
    src: { 'index.ts': "import { createToolServer } from '@foundry/server'\n" },
  },
  marbles: {
    name: '@foundry/marbles',
    dependencies: dep('@foundry/server'),
    devDependencies: dep('@foundry/adapter-fs'),
  },
  foundry: { name: '@foundry/cli', dependencies: dep('@foundry/mcp', '@foundry/marbles', '@foundry/adapter-fs') },
}

test('the layers as they should be: no problem, and the script exits 0', () => {
  const root = tree(GOOD)
  try {
    assert.equal(checkBoundaries(root), [])
    assert.is(spawnSync(process.execPath, [SCRIPT, root]).status, 0)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

test('a consumer depending on a consumer or an adapter, and a src import of one, are each named; exit 1', () => {
  const root = tree({
    ...GOOD,
    marbles: {
      name: '@foundry/marbles',
      dependencies: dep('@foundry/server', '@foundry/mcp'),
      src: { 'host.ts': "const { bin } = await import('@foundry/cli/package.json')\n" },
    },
    hooks: {
      name: '@foundry/hooks',
      dependencies: dep('@foundry/adapter-fs'),
      src: { 'run.ts': "import { fsStorage } from '@foundry/adapter-fs'\nimport x from '../../mcp/src/index.js'\n" },
    },
    server: { name: '@foundry/server', dependencies: dep('@foundry/kernel', '@foundry/hooks') },
  })
  try {
    const problems = checkBoundaries(root)
    const edges = problems.map((p) => p.split(':')[0])
    assert.equal(edges.sort(), [
      '@foundry/hooks → ../../mcp/src/index.js (packages/hooks/src/run.ts)',
      '@foundry/hooks → @foundry/adapter-fs (package.json dependencies)',
      '@foundry/hooks → @foundry/adapter-fs (packages/hooks/src/run.ts)',
      '@foundry/marbles → @foundry/cli (packages/marbles/src/host.ts)',
      '@foundry/marbles → @foundry/mcp (package.json dependencies)',
      '@foundry/server → @foundry/hooks (package.json dependencies)',
    ])
    assert.ok(problems.some((p) => p.includes('a consumer may not depend on a consumer')))
    assert.ok(
      problems.some((p) =>
        p.includes('a consumer may not depend on an adapter; open adapters through @foundry/project'),
      ),
    )
    const run = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' })
    assert.is(run.status, 1)
    assert.match(run.stderr, 'boundaries: @foundry/marbles → @foundry/mcp (package.json dependencies)')
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

test('a retriever package is an adapter: only project and apps use it; the kernel not even as a devDependency', () => {
  const retriever = { name: '@foundry/retriever-minisearch', dependencies: dep('@foundry/kernel') }
  const root = tree({
    ...GOOD,
    'retriever-minisearch': retriever,
    project: { ...GOOD.project, dependencies: dep('@foundry/kernel', '@foundry/retriever-minisearch') },
    kernel: { name: '@foundry/kernel', devDependencies: dep('@foundry/retriever-minisearch') },
    mcp: {
      ...GOOD.mcp,
      src: { 'index.ts': "import { minisearchRetriever } from '@foundry/retriever-minisearch'\n" },
    },
  })
  try {
    assert.equal(
      checkBoundaries(root)
        .map((p) => p.split(':')[0])
        .sort(),
      [
        '@foundry/kernel → @foundry/retriever-minisearch (package.json devDependencies)',
        '@foundry/mcp → @foundry/retriever-minisearch (packages/mcp/src/index.ts)',
      ],
    )
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

test('a package with no layer is named with where to declare it', () => {
  const root = tree({ ...GOOD, extra: { name: '@foundry/extra' } })
  try {
    assert.equal(checkBoundaries(root), [
      '@foundry/extra: no layer; add it to LAYERS in scripts/check-boundaries.mjs (kernel, adapter, root, kit, consumer or app)',
    ])
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

test.run()
