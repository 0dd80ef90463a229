import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createKernel } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { tempRoot } from './helpers.js'

const facts = (root: string) => join(root, '.foundry', 'memory', 'facts')
const convention = (title: string) => ({ title, body: `Body of ${title}.`, type: 'convention' })

test('fact files edited and added by hand: the next process rebuilds the write catalog and sees them', async () => {
  const root = tempRoot()
  const first = createKernel({ storage: fsStorage({ root, durable: false }), root })
  for (const title of ['Logs are JSON lines', 'Retries are capped at 3', 'Cache TTL is 30 seconds'])
    await first.memory.write(convention(title))
  await first.close()

  // An editor saves through a temporary file and a rename; a file copied in by hand.
  const path = join(facts(root), 'fact-0002.md')
  const edited = readFileSync(path, 'utf8')
    .replace('Retries are capped at 3', 'Retries are capped at 5')
    .replace('Body of Retries are capped at 3.', 'Body of Retries are capped at 5.')
  writeFileSync(`${path}.tmp`, edited)
  renameSync(`${path}.tmp`, path)
  writeFileSync(
    join(facts(root), 'fact-0009.md'),
    readFileSync(join(facts(root), 'fact-0001.md'), 'utf8')
      .replace('fact-0001', 'fact-0009')
      .replaceAll('Logs are JSON lines', 'Tabs are two spaces'),
  )

  const kernel = createKernel({ storage: fsStorage({ root, durable: false }), root })
  const same = await kernel.memory.write(convention('Retries are capped at 5'))
  assert.equal([same.action, same.id], ['duplicate', 'fact-0002'], same.text)
  assert.is(
    (await kernel.memory.write(convention('Tabs are two spaces'))).id,
    'fact-0009',
    'the added file is a duplicate too',
  )
  const next = await kernel.memory.write(convention('Cache TTL is 60 seconds'))
  assert.equal([next.id, next.supersedes], ['fact-0010', 'fact-0003'], next.text)
  assert.is(await kernel.memory.activeCount(), 4)
  await kernel.close()
})

test('the catalog records live in the cache folder, beside the other derived state', async () => {
  const root = tempRoot()
  const kernel = createKernel({ storage: fsStorage({ root, durable: false }), root })
  await kernel.memory.write(convention('Logs are JSON lines'))
  await kernel.close()
  assert.ok(JSON.parse(readFileSync(join(root, '.foundry', 'cache', 'meta', 'catalog', 'head'), 'utf8')).active === 1)
})

test.run()
