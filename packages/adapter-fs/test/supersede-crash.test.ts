import { createKernel } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { runFixture, tempRoot } from './helpers.js'

test('a process killed between the two writes of a supersede leaves exactly one fact active: the new one', async () => {
  const root = tempRoot()
  const crashed = await runFixture('supersede-crash', [root]).done
  assert.is(
    crashed.code,
    'SIGKILL',
    `the writer died right after storing the superseding fact (exit ${crashed.code}): ${crashed.stdout}${crashed.stderr}`,
  )
  assert.match(crashed.stdout, /^wrote fact-0001$/m)

  const kernel = createKernel({ storage: fsStorage({ root }) })
  try {
    const active = await kernel.memory.list()
    assert.equal(
      active.map((f) => f.title),
      ['API timeout is 60 seconds'],
      'exactly one of the two is active, and it is the new one',
    )
    const found = await kernel.memory.search({ query: 'API timeout' })
    assert.equal(
      found.hits.map((h) => h.fact.title),
      ['API timeout is 60 seconds'],
      'search finds only the 60-second fact',
    )
    const superseded = await kernel.memory.list({ status: 'superseded' })
    assert.equal(
      superseded.map((f) => f.title),
      ['API timeout is 30 seconds'],
      'the 30-second fact is listed as superseded',
    )
  } finally {
    await kernel.close()
  }
})

test.run()
