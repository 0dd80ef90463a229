import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createKernel, type StorageProblem } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { tempRoot } from './helpers.js'

const facts = (root: string) => join(root, '.foundry', 'memory', 'facts')

test('one broken fact file does not break search: it is skipped, reported once, and the rest answers', async () => {
  const root = tempRoot()
  const writer = createKernel({ storage: fsStorage({ root, durable: false }), root })
  for (const [title, body] of [
    ['Billing retries failed charges', 'Billing retries a failed charge three times.'],
    ['Billing invoices are immutable', 'A billing invoice is never edited after it is sent.'],
    ['Search uses BM25', 'Search ranks with BM25.'],
  ])
    await writer.memory.write({ title, body, type: 'domain' })
  await writer.memory.search({ query: 'billing' }) // the retriever's snapshot now names every fact
  await writer.close()
  // Broken in place (no folder change): a later process still finds it through the snapshot.
  const path = join(facts(root), 'fact-0001.md')
  writeFileSync(path, readFileSync(path, 'utf8').replace('type: domain', 'type: [unclosed'))

  const problems: StorageProblem[] = []
  const reader = createKernel({ storage: fsStorage({ root }), root, onProblem: (p) => problems.push(p) })
  for (let i = 0; i < 3; i++) {
    const found = await reader.memory.search({ query: 'billing' })
    assert.equal(
      found.hits.map((h) => h.fact.id),
      ['fact-0002'],
      found.text,
    )
    assert.match(found.text, /Billing invoices are immutable/)
  }
  assert.is(problems.length, 1, JSON.stringify(problems))
  assert.is(problems[0]!.key, 'fact-0001')
  assert.match(problems[0]!.location, /fact-0001\.md$/)
  await reader.close()
})

test.run()
