import { appendFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createKernel, type FoundryEvent } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { tempRoot } from './helpers.js'

const event = (n: number): FoundryEvent =>
  ({ v: 1, ts: new Date(0).toISOString(), kind: `test_${n}`, data: { n } }) as unknown as FoundryEvent

test('a half line in events.jsonl (a writer killed mid-append) does not swallow the next event', async () => {
  const root = tempRoot()
  const s = fsStorage({ root })
  await s.appendEvent(event(1))
  appendFileSync(
    join(root, '.foundry', 'metrics', 'events.jsonl'),
    '{"v":1,"ts":"2026-01-01T00:00:00.000Z","kind":"cut sh',
  )
  await s.appendEvent(event(2))
  await s.appendEvent(event(3))
  assert.equal(
    (await s.readEvents()).map((e) => e.kind),
    ['test_1', 'test_2', 'test_3'],
  )
})

test('temporary files a killed writer left beside INDEX.md are swept by the next index write, and are gitignored', async () => {
  const root = tempRoot()
  const kernel = createKernel({ storage: fsStorage({ root }), root })
  await kernel.memory.write({ title: 'Billing retries failed charges', body: 'Three times.', type: 'domain' })
  const memory = join(root, '.foundry', 'memory')
  const dead = 2 ** 22 + 12345 // above Linux's pid_max default: no such process
  writeFileSync(join(memory, `.INDEX.md.${dead}-1abcdef.tmp`), 'half an index')
  await kernel.close()
  const next = createKernel({ storage: fsStorage({ root }), root })
  await next.memory.write({ title: 'Invoices are immutable', body: 'Never edited once sent.', type: 'domain' })
  await next.close()
  assert.equal(
    readdirSync(memory).filter((n) => n.endsWith('.tmp')),
    [],
    'swept',
  )
  assert.match(
    readFileSync(join(root, '.foundry', '.gitignore'), 'utf8'),
    /^\.\*\.tmp$/m,
    'temporary files are gitignored',
  )
})

test.run()
