import { join } from 'node:path'
import type { Fact } from '@foundry/kernel'
import { storageSuite } from '@foundry/kernel/testing'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { tempRoot, walk } from './helpers.js'

// The whole contract holds with the derived state kept outside the data folder.
storageSuite(test, () => fsStorage({ root: tempRoot(), cache: join(tempRoot(), 'cache') }), {
  prefix: 'fsStorage, cache elsewhere: ',
})

test('with cache elsewhere, the data folder holds content only; journals, caches, snapshots and the lock go there', async () => {
  const root = tempRoot()
  const cache = join(tempRoot(), 'derived')
  const s = fsStorage({ root, cache })
  const fact: Fact = {
    id: 'fact-0001',
    title: 'T',
    body: 'B',
    type: 'domain',
    scope: 'project',
    tags: [],
    confidence: 'medium',
    source: 'code',
    created: '2026-01-01T00:00:00.000Z',
    status: 'active',
  }
  await s.exclusive(async () => {
    await s.put('facts', 'fact-0001', fact)
    await s.put('meta', 'index', '# Index\n')
    await s.put('meta', 'retriever/minisearch/head', 'snapshot')
  })
  assert.equal(await s.list('facts'), [fact])
  const before = await s.revision('facts')
  await s.put('facts', 'fact-0001', { ...fact, body: 'C' })
  assert.equal(await s.changes!('facts', before), ['fact-0001'], 'the change journal works from there')
  assert.is(await s.get('meta', 'retriever/minisearch/head'), 'snapshot')
  assert.equal(walk(join(root, '.foundry')).sort(), [
    '.gitignore',
    'memory/',
    'memory/INDEX.md',
    'memory/facts/',
    'memory/facts/fact-0001.md',
  ])
  assert.ok(walk(cache).includes('facts.journal'), walk(cache).join(', '))
  assert.ok(walk(cache).includes('meta/retriever/minisearch/head'))
})

test('a relative cache folder is relative to the root', async () => {
  const root = tempRoot()
  const s = fsStorage({ root, cache: 'derived' })
  await s.put('runbooks', 'deploy', { slug: 'deploy', title: 'Deploy', body: '1. Go.' })
  assert.ok(walk(join(root, 'derived')).includes('runbooks.journal'))
  assert.not.ok(walk(join(root, '.foundry')).some((p) => p.startsWith('cache')))
})

test.run()
