import { appendFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { tempRoot, walk } from './helpers.js'

const logFile = (root: string, name: string) => join(root, '.foundry', 'logs', ...name.split('/')) + '.jsonl'

test('a log is logs/<name>.jsonl, one JSON string a line; slashes in names are folders; logs/ is gitignored', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  const end = await storage.appendLog('marbles/run-7f3a', ['started', 'step 1\nwith a newline', 'ü ✓'])
  await storage.appendLog('other', ['x'])
  const text = readFileSync(logFile(root, 'marbles/run-7f3a'), 'utf8')
  assert.is(text, '"started"\n"step 1\\nwith a newline"\n"ü ✓"\n')
  assert.is(end, Buffer.byteLength(text), 'the cursor is a byte offset')
  assert.equal(walk(join(root, '.foundry', 'logs')), ['marbles/', 'marbles/run-7f3a.jsonl', 'other.jsonl'])
  assert.match(readFileSync(join(root, '.foundry', '.gitignore'), 'utf8'), /^logs\/$/m)
  assert.equal(await storage.logs(), ['marbles/run-7f3a', 'other'])
  assert.is(
    await storage.appendLog('other', []),
    await storage.logEnd('other'),
    'an empty append writes nothing and answers the end',
  )
  assert.is(await storage.appendLog('never-written', []), 0)
  assert.equal(await storage.logs(), ['marbles/run-7f3a', 'other'], 'an empty append creates no log')
})

test('a torn last line is never returned, and entries appended after it are all readable', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  const whole = await storage.appendLog('journal', ['one', 'two'])
  // A crash mid-write: part of an entry, cut inside a multi-byte character, with no newline.
  appendFileSync(logFile(root, 'journal'), Buffer.from('"three is cut sh\u00fc', 'utf8').subarray(0, -1))
  assert.equal(
    await storage.readLog('journal', 0),
    { entries: ['one', 'two'], cursor: whole },
    'only the whole entries',
  )
  assert.is(await storage.logEnd('journal'), whole, 'the end is after the last whole entry')
  assert.equal(await storage.readLog('journal', whole), { entries: [], cursor: whole }, 'nothing to read at the end')

  const after = await storage.appendLog('journal', ['four', 'five'])
  assert.is(await storage.logEnd('journal'), after)
  assert.equal(
    (await storage.readLog('journal', 0)).entries,
    ['one', 'two', 'four', 'five'],
    'the torn line is skipped, the rest is intact',
  )
  assert.equal(
    await storage.readLog('journal', whole),
    { entries: ['four', 'five'], cursor: after },
    'a reader waiting at the old end reads on',
  )
  assert.equal(await storage.readLog('journal', whole, { limit: 1 }), {
    entries: ['four'],
    cursor: after - Buffer.byteLength('"five"\n'),
  })

  // Power-loss garbage (zeros where the data never reached the disk) is skipped the same way.
  appendFileSync(logFile(root, 'journal'), Buffer.alloc(16))
  await storage.appendLog('journal', ['six'])
  assert.equal((await storage.readLog('journal', after)).entries, ['six'])
  const lines = readFileSync(logFile(root, 'journal'), 'utf8').split('\n')
  assert.is(lines.filter((line) => line.startsWith('"three')).length, 1, 'the torn line stays on a line of its own')
})

test('pages cross read buffers: large entries read back whole, page by page', async () => {
  const storage = fsStorage({ root: tempRoot() })
  const entries = Array.from({ length: 12 }, (_, i) => `${i}:${'é'.repeat(30_000 * (i % 4))}`)
  await storage.appendLog('big', entries.slice(0, 5))
  await storage.appendLog('big', entries.slice(5))
  const read: string[] = []
  let cursor = 0
  for (
    let page = await storage.readLog('big', 0, { limit: 1 });
    page.entries.length;
    page = await storage.readLog('big', cursor, { limit: 1 })
  ) {
    read.push(...page.entries)
    cursor = page.cursor
  }
  assert.equal(read, entries)
  assert.is(cursor, await storage.logEnd('big'))
})

test('each concurrent append answers the cursor right after its own entries', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  const cursors = await Promise.all(
    Array.from({ length: 30 }, (_, i) => storage.appendLog('race', [`a${i}`, `b${i}`.repeat(1 + (i % 7))])),
  )
  const ends = new Map<string, number>()
  let at = 0
  for (const line of readFileSync(logFile(root, 'race'), 'utf8').split('\n').slice(0, -1))
    ends.set(JSON.parse(line), (at += Buffer.byteLength(line) + 1))
  for (let i = 0; i < 30; i++) assert.is(cursors[i], ends.get(`b${i}`.repeat(1 + (i % 7))), `append ${i}`)
})

test.run()
