import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { StorageProblem } from '@foundry/kernel'
import { sampleFact } from '@foundry/kernel/testing'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { refused, tempRoot, touchLater, walk } from './helpers.js'

test('open collections live at data/<collection>/<key>.json as pretty-printed JSON; slashes in keys are folders', async () => {
  const root = tempRoot()
  const data = join(root, '.foundry', 'data')
  const storage = fsStorage({ root })
  const run = { id: 'run-1', steps: [{ name: 'build', ok: true }], note: null }
  await storage.put('marbles.runs', 'run-1', run)
  await storage.put('marbles.runs', 'run-7f3a/steps', ['a', 'b'])
  await storage.put('other-tool.state', 'cursor', 42)
  assert.is(readFileSync(join(data, 'marbles.runs', 'run-1.json'), 'utf8'), `${JSON.stringify(run, null, 2)}\n`)
  assert.equal(walk(data), [
    'marbles.runs/',
    'marbles.runs/run-1.json',
    'marbles.runs/run-7f3a/',
    'marbles.runs/run-7f3a/steps.json',
    'other-tool.state/',
    'other-tool.state/cursor.json',
  ])
  assert.is(storage.locate('marbles.runs', 'run-7f3a/steps'), join(data, 'marbles.runs', 'run-7f3a', 'steps.json'))
  // A key and a folder of keys under the same name live side by side (`a.json` and `a/`).
  await storage.put('marbles.runs', 'run-1/log', 'text')
  assert.equal(await storage.keys('marbles.runs'), ['run-1', 'run-1/log', 'run-7f3a/steps'])
  assert.equal(await storage.get('marbles.runs', 'run-1'), run)
  assert.equal(await storage.collections(), ['marbles.runs', 'other-tool.state'])

  // Deleting the last record of a sub-folder removes the folder; an emptied collection is no longer named.
  assert.ok(await storage.delete('marbles.runs', 'run-7f3a/steps'))
  assert.not.ok(existsSync(join(data, 'marbles.runs', 'run-7f3a')), 'the emptied folder is pruned')
  assert.ok(await storage.delete('other-tool.state', 'cursor'))
  assert.equal(await storage.collections(), ['marbles.runs'])
  mkdirSync(join(data, 'Not A Collection'))
  writeFileSync(join(data, 'Not A Collection', 'x.json'), '1')
  assert.equal(await storage.collections(), ['marbles.runs'], 'folders not named like a collection are ignored')
})

test('open-collection files written by hand read back; a bad one is CORRUPT on get and reported by list; other files are ignored', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  await storage.put('marbles.runs', 'run-1', { id: 'run-1' })
  const dir = join(root, '.foundry', 'data', 'marbles.runs')
  writeFileSync(join(dir, 'by-hand.json'), '{ "id": "by-hand" }')
  writeFileSync(join(dir, 'broken.json'), '{\n  "id": "broken",\n}')
  writeFileSync(join(dir, 'notes.txt'), 'not a record')
  assert.equal(await storage.get('marbles.runs', 'by-hand'), { id: 'by-hand' })
  await refused(
    () => storage.get('marbles.runs', 'broken'),
    'CORRUPT',
    /Cannot read marbles\.runs record broken from .*broken\.json: invalid JSON at line 3.*Fix the file or delete it/,
  )
  const problems: StorageProblem[] = []
  assert.equal(await storage.list('marbles.runs', { onProblem: (p) => problems.push(p) }), [
    { id: 'by-hand' },
    { id: 'run-1' },
  ])
  assert.equal(
    problems.map((p) => p.key),
    ['broken'],
  )
  assert.equal(await storage.keys('marbles.runs'), ['broken', 'by-hand', 'run-1'], 'keys reads no record')
})

test('revision and changes work for open collections, and notice a file added by hand', async () => {
  const root = tempRoot()
  const a = fsStorage({ root })
  const b = fsStorage({ root })
  const r0 = await b.revision('marbles.runs')
  await a.put('marbles.runs', 'run-1', { n: 1 })
  await a.put('marbles.runs', 'deep/run-2', { n: 2 })
  const r1 = await b.revision('marbles.runs')
  assert.is.not(r1, r0)
  assert.equal(await b.changes!('marbles.runs', r0), ['run-1', 'deep/run-2'])
  assert.is(await b.revision('facts'), await b.revision('facts'), 'collections have their own revisions')
  await a.delete('marbles.runs', 'deep/run-2')
  assert.equal(await b.changes!('marbles.runs', r1), ['deep/run-2'])
  const r2 = await b.revision('marbles.runs')
  writeFileSync(join(root, '.foundry', 'data', 'marbles.runs', 'run-9.json'), '{}')
  touchLater(join(root, '.foundry', 'data', 'marbles.runs'))
  assert.is.not(await b.revision('marbles.runs'), r2)
  assert.is(await b.changes!('marbles.runs', r2), undefined, 'a file added by hand: the caller re-lists')
})

test('values JSON would not keep as they are are refused with INVALID_INPUT naming the field', async () => {
  const storage = fsStorage({ root: tempRoot() })
  const cyclic: Record<string, unknown> = {}
  cyclic.self = cyclic
  for (const [value, pattern] of [
    [{ ratio: Number.NaN }, /marbles\.runs record r: field "ratio" is NaN, which JSON cannot hold/],
    [{ at: Number.POSITIVE_INFINITY }, /field "at" is Infinity/],
    [{ run: () => 1 }, /field "run" is a function/],
    [[1, undefined], /field "1" is undefined/],
    [undefined, /the value is undefined; store a JSON value \(null for none\)/],
    [{ big: 10n }, /BigInt/],
    [cyclic, /circular/],
  ] as const) {
    await refused(() => storage.put('marbles.runs', 'r', value as never), 'INVALID_INPUT', pattern)
  }
  assert.equal(await storage.keys('marbles.runs'), [], 'nothing was stored')
  await storage.put('marbles.runs', 'r', { kept: 1, dropped: undefined } as never)
  assert.equal(
    await storage.get('marbles.runs', 'r'),
    { kept: 1 },
    'an undefined field is left out, like an absent optional one',
  )
})

test('relaxed and durable writes both round-trip through another instance, and durable: false relaxes everything', async () => {
  const root = tempRoot()
  for (const [w, writer] of [fsStorage({ root }), fsStorage({ root, durable: false })].entries()) {
    for (const durability of ['durable', 'relaxed'] as const) {
      const key = `writer-${w}-${durability}`
      await writer.put('marbles.runs', key, { durability }, { durability })
      await writer.put('meta', `cache/${durability}`, durability, { durability })
      await writer.put('facts', 'fact-0001', sampleFact(1, { title: durability }), { durability })
      const cursor = await writer.appendLog('journal', [durability], { durability })
      const reader = fsStorage({ root })
      assert.equal(await reader.get('marbles.runs', key), { durability })
      assert.is(await reader.get('meta', `cache/${durability}`), durability)
      assert.is((await reader.get('facts', 'fact-0001'))?.title, durability)
      assert.is(await reader.logEnd('journal'), cursor)
      assert.ok(await writer.delete('meta', `cache/${durability}`, { durability }))
      assert.is(await reader.get('meta', `cache/${durability}`), undefined)
    }
  }
})

test('a nested exclusive is refused with UNSUPPORTED instead of waiting for itself; the outer section goes on', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  const other = fsStorage({ root }) // another instance on the same folder: the same lock
  const elsewhere = fsStorage({ root: tempRoot() })
  let later: Promise<string> | undefined
  let settled = () => {}
  const outerSettled = new Promise<void>((resolve) => (settled = resolve))
  const outcome = await storage.exclusive(async () => {
    await storage.put('meta', 'outer', '1')
    await refused(
      () => storage.exclusive(async () => 'inner'),
      'UNSUPPORTED',
      /inside an exclusive section of .*\.foundry: sections do not nest/,
    )
    await refused(() => other.exclusive(async () => 'inner'), 'UNSUPPORTED', /sections do not nest/)
    assert.is(
      await elsewhere.exclusive(async () => 'another folder'),
      'another folder',
      'a section of another folder may run inside',
    )
    later = outerSettled.then(() => storage.exclusive(async () => 'after')) // started inside, runs once the outer one settled
    await storage.put('meta', 'outer', '2')
    return 'outer done'
  })
  settled()
  assert.is(outcome, 'outer done')
  assert.is(await storage.get('meta', 'outer'), '2')
  assert.is(await later, 'after')
  assert.is(storage.flags.transactional, false)
})

test.run()
