import { mkdirSync, readFileSync, rmdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createKernel } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { tempRoot } from './helpers.js'

test('INDEX.md unwritable after the fact is stored: the write succeeds, the seed text first, then one warning that the index is stale', async () => {
  const root = tempRoot()
  const kernel = createKernel({ storage: fsStorage({ root, durable: false }), root })
  await kernel.memory.write({ title: 'Billing retries failed charges', body: 'Three times.', type: 'domain' })
  const index = join(root, '.foundry', 'memory', 'INDEX.md')
  const outside = tempRoot()
  const cases = [
    { title: 'Invoices are immutable', breakIt: () => (unlinkSync(index), mkdirSync(index)) }, // a folder in its place
    {
      title: 'Refunds need a second approver',
      breakIt: () => (
        rmdirSync(index),
        writeFileSync(join(outside, 'INDEX.md'), 'theirs'),
        symlinkSync(join(outside, 'INDEX.md'), index)
      ),
    }, // a link out: refused
  ]
  for (const { title, breakIt } of cases) {
    breakIt()
    const result = await kernel.memory.write({ title, body: 'Holds for every account.', type: 'domain' })
    assert.is(result.action, 'created')
    const lines = result.text.split('\n')
    assert.is(lines[0], `created: ${result.id}`)
    assert.match(lines[1]!, /^Index: /)
    assert.match(
      lines[lines.length - 1]!,
      /^warning: the fact is stored, but INDEX\.md could not be rewritten \(.+\); run foundry index once that is fixed$/,
      result.text,
    )
    assert.ok(result.indexStale, 'the structured result says so too')
    assert.is((await kernel.memory.get(result.id)).title, title, 'the fact is kept')
  }
  assert.is(readFileSync(join(outside, 'INDEX.md'), 'utf8'), 'theirs', 'never written through the link')
  unlinkSync(index)
  const forgot = await kernel.memory.forget('fact-0001', 'wrong')
  assert.not.ok(forgot.text.includes('warning'), forgot.text)
  await kernel.close()
})

test.run()
