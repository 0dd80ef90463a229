import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import type { Fact } from '@foundry/kernel'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { tempRoot } from './helpers.js'

const fact = (id: string): Fact => ({
  id,
  title: `T ${id}`,
  body: 'B',
  type: 'domain',
  scope: 'project',
  tags: [],
  confidence: 'medium',
  source: 'code',
  created: '2026-01-01T00:00:00.000Z',
  status: 'active',
})

test('journals linked outside the data folder are never written through: the link is replaced, and change lists still work', async () => {
  const root = tempRoot()
  const outside = tempRoot()
  const cache = join(root, '.foundry', 'cache')
  mkdirSync(cache, { recursive: true })
  for (const name of ['facts', 'meta']) {
    writeFileSync(join(outside, `${name}.txt`), 'precious\n')
    symlinkSync(join(outside, `${name}.txt`), join(cache, `${name}.journal`))
  }
  const s = fsStorage({ root })
  const before = await s.revision('facts')
  await s.put('facts', 'fact-0001', fact('fact-0001'))
  await s.put('meta', 'retriever/x', 'snapshot')
  assert.is(readFileSync(join(outside, 'facts.txt'), 'utf8'), 'precious\n', 'the outside file is untouched')
  assert.is(readFileSync(join(outside, 'meta.txt'), 'utf8'), 'precious\n')
  assert.match(
    readFileSync(join(cache, 'facts.journal'), 'utf8'),
    /^put fact-0001 /,
    'a journal of its own in the cache folder',
  )
  const mid = await s.revision('facts')
  await s.put('facts', 'fact-0002', fact('fact-0002'))
  assert.equal(await s.changes!('facts', mid), ['fact-0002'])
  assert.ok(
    (await s.changes!('facts', before)) === undefined || (await s.changes!('facts', before))!.includes('fact-0001'),
  )
})

test('a journal link is never read: a token naming it answers undefined (re-read), not lines from elsewhere', async () => {
  const root = tempRoot()
  const outside = tempRoot()
  const s = fsStorage({ root })
  await s.put('facts', 'fact-0001', fact('fact-0001'))
  const token = await s.revision('facts')
  const journal = join(root, '.foundry', 'cache', 'facts.journal')
  writeFileSync(join(outside, 'j'), readFileSync(journal, 'utf8') + 'put fact-0009 1,2\n')
  const { rmSync } = await import('node:fs')
  rmSync(journal)
  symlinkSync(join(outside, 'j'), journal)
  assert.is(await s.changes!('facts', token), undefined)
})

test('a link in the write lock’s place (to a folder outside, or to nothing) is removed, never followed: the section runs', async () => {
  for (const target of ['dir', 'missing', 'file']) {
    const root = tempRoot()
    const outside = tempRoot()
    const cache = join(root, '.foundry', 'cache')
    mkdirSync(cache, { recursive: true })
    mkdirSync(join(outside, 'dir'))
    writeFileSync(join(outside, 'file'), 'x')
    symlinkSync(join(outside, target), join(cache, 'write.lock'))
    const s = fsStorage({ root, lock: { stale: 2000, timeout: 3000 } })
    assert.is(await s.exclusive(async () => 'ran'), 'ran', target)
    assert.ok(
      existsSync(join(outside, 'dir')) && readdirSync(join(outside, 'dir')).length === 0,
      'the outside folder untouched',
    )
    assert.is(readFileSync(join(outside, 'file'), 'utf8'), 'x')
    assert.not.ok(existsSync(join(cache, 'write.lock')), 'released')
  }
})

test('a stale lock with a link in its breaker’s place: the link is removed, never followed, and the lock broken', async () => {
  for (const target of ['dir', 'missing']) {
    const root = tempRoot()
    const outside = tempRoot()
    const cache = join(root, '.foundry', 'cache')
    mkdirSync(join(cache, 'write.lock'), { recursive: true })
    const old = new Date(Date.now() - 60_000)
    utimesSync(join(cache, 'write.lock'), old, old) // its holder died a minute ago
    mkdirSync(join(outside, 'dir'))
    symlinkSync(join(outside, target), join(cache, 'write.lock.break'))
    const s = fsStorage({ root, lock: { stale: 2000, timeout: 3000 } })
    assert.is(await s.exclusive(async () => 'ran'), 'ran', target)
    assert.ok(existsSync(join(outside, 'dir')), 'the outside folder untouched')
    assert.is(lstatSync(join(cache, 'write.lock.break'), { throwIfNoEntry: false }), undefined, 'the link removed')
  }
})

test.run()
