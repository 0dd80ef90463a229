import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createKernel, FoundryError } from '@foundry/kernel'
import { sampleFact } from '@foundry/kernel/testing'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { parse } from 'yaml'
import { fsStorage } from '../src/index.js'
import { tempRoot } from './helpers.js'

const file = (root: string, id: string) => join(root, '.foundry', 'memory', 'facts', `${id}.md`)
const frontOf = (text: string) => parse(/^---\n([\s\S]*?)---\n/.exec(text)![1]!) as Record<string, unknown>

test('a forgotten fact stays on disk with its status, reason and time, and survives a reload', async () => {
  const root = tempRoot()
  const first = createKernel({ storage: fsStorage({ root }) })
  await first.memory.write({ title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' })
  await first.memory.write({
    title: 'Invoices are numbered per year',
    body: 'INV-2026-0001, in integer cents.',
    type: 'convention',
  })
  const { forgotten } = await first.memory.forget('fact-0001', 'We store decimals now: see ADR-12')
  await first.close()

  const text = readFileSync(file(root, 'fact-0001'), 'utf8')
  const front = frontOf(text)
  assert.equal(
    Object.keys(front).slice(-3),
    ['status', 'forgotten', 'forgottenReason'],
    'after status, in the documented order',
  )
  assert.equal(
    [front.status, front.forgotten, front.forgottenReason],
    ['forgotten', forgotten, 'We store decimals now: see ADR-12'],
  )
  assert.match(text, /\n---\n\nNever floats\.\n$/, 'the body kept')

  const second = createKernel({ storage: fsStorage({ root }) })
  try {
    const [fact] = await second.memory.list({ status: 'forgotten' })
    assert.equal(
      [fact?.id, fact?.status, fact?.forgotten, fact?.forgottenReason],
      ['fact-0001', 'forgotten', forgotten, 'We store decimals now: see ADR-12'],
    )
    assert.equal(
      (await second.memory.list()).map((f) => f.id),
      ['fact-0002'],
    )
    assert.equal(
      (await second.memory.search({ query: 'integer cents' })).hits.map((h) => h.fact.id),
      ['fact-0002'],
      'not found by a new process',
    )
    assert.not.match(await second.memory.readIndex(), /fact-0001/)
    assert.not.match(readFileSync(join(root, '.foundry', 'memory', 'INDEX.md'), 'utf8'), /fact-0001/)
  } finally {
    await second.close()
  }
})

test('a forgotten fact put and read back is the same record; a hand-written date is read as a timestamp', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  const fact = sampleFact(3, {
    status: 'forgotten',
    forgotten: '2026-11-30T12:00:00.000Z',
    forgottenReason: 'Wrong: "quoted", #hash, and: colon',
  })
  await storage.put('facts', fact.id, fact)
  assert.equal(await storage.get('facts', fact.id), fact)
  writeFileSync(
    file(root, fact.id),
    readFileSync(file(root, fact.id), 'utf8').replace(/^forgotten: .*$/m, 'forgotten: 2026-11-30'),
  )
  assert.is((await fsStorage({ root }).get('facts', fact.id))?.forgotten, '2026-11-30T00:00:00.000Z')
})

test('a forgotten time the reader would rewrite is refused on put', async () => {
  const storage = fsStorage({ root: tempRoot() })
  try {
    await storage.put(
      'facts',
      'fact-0004',
      sampleFact(4, { status: 'forgotten', forgotten: 'yesterday afternoon', forgottenReason: 'x' }),
    )
    assert.unreachable('stored')
  } catch (error) {
    assert.ok(error instanceof FoundryError && error.code === 'INVALID_INPUT')
    assert.match((error as Error).message, /^Cannot store fact fact-0004: forgotten must be an ISO 8601 timestamp/)
  }
})

test.run()
