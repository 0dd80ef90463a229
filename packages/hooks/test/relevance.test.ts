import { fsStorage } from '@foundry/adapter-fs'
import { createKernel, memoryStorage } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { activeFactCount, countIndexedFacts, promptQuery, relevance, relevanceUnit } from '../src/index.js'
import { larkspurFacts, larkspurProject } from './helpers.js'

test('promptQuery keeps the topic words, once each, and drops conversational ones', () => {
  assert.is(promptQuery("Can you please fix the Stripe webhook? It's creating duplicate payments, duplicate!"), 'the Stripe webhook It creating duplicate payments')
  assert.is(promptQuery('how do I do this?'), 'this')
  assert.is(promptQuery('can you help me?'), '')
  assert.ok(promptQuery(Array.from({ length: 3000 }, (_, i) => `word${i}`).join(' ')).length <= 2000)
})

test('the relevance unit is the IDF of a word found in a single fact', () => {
  assert.ok(Math.abs(relevanceUnit(219) - Math.log(1 + 218.5 / 1.5)) < 1e-12)
  assert.ok(relevanceUnit(10_000) > relevanceUnit(200), 'a rare word weighs more in a larger memory')
  assert.is(relevance(relevanceUnit(500) * 3, 500), 3)
  assert.is(relevance(relevanceUnit(500) * 1.7 * 3, 500, 'fts'), 3)
  assert.ok(Number.isFinite(relevanceUnit(0)))
})

test('countIndexedFacts reads the listed lines and the omitted count of INDEX.md', async () => {
  const kernel = createKernel({ storage: memoryStorage(), config: { indexTokenBudget: 300 } })
  for (const fact of larkspurFacts().slice(0, 40)) await kernel.memory.write(fact)
  const index = await kernel.memory.readIndex()
  assert.match(index, /_\d+ more facts omitted/)
  assert.is(countIndexedFacts(index), 40)
  assert.is(await activeFactCount(kernel), (await kernel.memory.list()).length)
  assert.is(countIndexedFacts('# Memory index\n\nNo facts yet. Store one with memory_write.\n'), 0)
})

test('activeFactCount on the Larkspur project equals the facts listed by the kernel', async () => {
  const dir = await larkspurProject()
  const kernel = createKernel({ storage: fsStorage({ root: dir }) })
  assert.is(await activeFactCount(kernel), larkspurFacts().length)
  await kernel.close()
})

test.run()
