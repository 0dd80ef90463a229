import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createKernel, isFoundryError, type StorageProblem } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { tempRoot } from './helpers.js'

const file = (id: string) =>
  `---\nid: ${id}\ntitle: Written by hand as ${id}\ntype: domain\ncreated: 2026-01-01T00:00:00.000Z\n---\n\nA hand-written fact.\n`

test('a fact file numbered beyond 2^53 is reported, not trusted: two writes get two ids and overwrite nothing', async () => {
  const root = tempRoot()
  const problems: StorageProblem[] = []
  const kernel = createKernel({ storage: fsStorage({ root }), root, onProblem: (p) => problems.push(p) })
  await kernel.memory.write({ title: 'Billing retries failed charges', body: 'Three times.', type: 'domain' })
  const huge = join(root, '.foundry', 'memory', 'facts', 'fact-99999999999999999999.md')
  writeFileSync(huge, file('fact-99999999999999999999'))
  const a = await kernel.memory.write({
    title: 'Invoices are immutable',
    body: 'Never edited once sent.',
    type: 'domain',
  })
  const b = await kernel.memory.write({ title: 'Refunds need a second approver', body: 'Always.', type: 'domain' })
  assert.is.not(a.id, b.id, `${a.id} and ${b.id}`)
  assert.equal([a.id, b.id], ['fact-0002', 'fact-0003'])
  assert.is((await kernel.memory.get(a.id)).title, 'Invoices are immutable', 'the first write is kept')
  assert.is(readFileSync(huge, 'utf8'), file('fact-99999999999999999999'), 'the hand-written file untouched')
  assert.ok(
    problems.some((p) => p.key === 'fact-99999999999999999999'),
    JSON.stringify(problems),
  )
  await kernel.close()
})

test('at the last exact id the next write is refused with a clear error, never stored over another', async () => {
  const root = tempRoot()
  const kernel = createKernel({ storage: fsStorage({ root }), root })
  const last = join(root, '.foundry', 'memory', 'facts', 'fact-999999999999999.md')
  await kernel.memory.write({ title: 'Billing retries failed charges', body: 'Three times.', type: 'domain' })
  writeFileSync(last, file('fact-999999999999999'))
  const error = await kernel.memory
    .write({ title: 'Invoices are immutable', body: 'Never edited once sent.', type: 'domain' })
    .then(
      (r) => r,
      (e: unknown) => e,
    )
  assert.ok(isFoundryError(error), String((error as { text?: string }).text ?? error))
  assert.match((error as Error).message, /fact-999999999999999/)
  assert.is(readFileSync(last, 'utf8'), file('fact-999999999999999'))
  await kernel.close()
})

test.run()
