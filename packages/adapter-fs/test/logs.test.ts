import { appendFileSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { fsStorage } from '../src/index.js'
import { runFixture, tempRoot, walk } from './helpers.js'

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
  assert.is(await storage.appendLog('other', []), await storage.logEnd('other'), 'an empty append writes nothing and answers the end')
  assert.is(await storage.appendLog('never-written', []), 0)
  assert.equal(await storage.logs(), ['marbles/run-7f3a', 'other'], 'an empty append creates no log')
})

test('a torn last line is never returned, and entries appended after it are all readable', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  const whole = await storage.appendLog('journal', ['one', 'two'])
  // A crash mid-write: part of an entry, cut inside a multi-byte character, with no newline.
  appendFileSync(logFile(root, 'journal'), Buffer.from('"three is cut sh\u00fc', 'utf8').subarray(0, -1))
  assert.equal(await storage.readLog('journal', 0), { entries: ['one', 'two'], cursor: whole }, 'only the whole entries')
  assert.is(await storage.logEnd('journal'), whole, 'the end is after the last whole entry')
  assert.equal(await storage.readLog('journal', whole), { entries: [], cursor: whole }, 'nothing to read at the end')

  const after = await storage.appendLog('journal', ['four', 'five'])
  assert.is(await storage.logEnd('journal'), after)
  assert.equal((await storage.readLog('journal', 0)).entries, ['one', 'two', 'four', 'five'], 'the torn line is skipped, the rest is intact')
  assert.equal(await storage.readLog('journal', whole), { entries: ['four', 'five'], cursor: after }, 'a reader waiting at the old end reads on')
  assert.equal(await storage.readLog('journal', whole, { limit: 1 }), { entries: ['four'], cursor: after - Buffer.byteLength('"five"\n') })

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
  for (let page = await storage.readLog('big', 0, { limit: 1 }); page.entries.length; page = await storage.readLog('big', cursor, { limit: 1 })) {
    read.push(...page.entries)
    cursor = page.cursor
  }
  assert.equal(read, entries)
  assert.is(cursor, await storage.logEnd('big'))
})

test('each concurrent append answers the cursor right after its own entries', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  const cursors = await Promise.all(Array.from({ length: 30 }, (_, i) => storage.appendLog('race', [`a${i}`, `b${i}`.repeat(1 + (i % 7))])))
  const ends = new Map<string, number>()
  let at = 0
  for (const line of readFileSync(logFile(root, 'race'), 'utf8').split('\n').slice(0, -1)) ends.set(JSON.parse(line), (at += Buffer.byteLength(line) + 1))
  for (let i = 0; i < 30; i++) assert.is(cursors[i], ends.get(`b${i}`.repeat(1 + (i % 7))), `append ${i}`)
})

test('6 processes appending to one log at once lose nothing and interleave nothing, while a reader follows', async () => {
  const root = tempRoot()
  const storage = fsStorage({ root })
  const workers = Array.from({ length: 6 }, (_, k) => runFixture('log-appender', [root, String(k), '60']))
  const done = Promise.all(workers.map((w) => w.done))
  let finished = false
  void done.then(() => (finished = true))
  // A reader tailing the log by cursor while the appenders run.
  const followed: string[] = []
  let cursor = 0
  for (let last = false; !last; ) {
    last = finished
    const page = await storage.readLog('shared/journal', cursor, { limit: 50 })
    followed.push(...page.entries)
    cursor = page.cursor
    if (!page.entries.length && !last) await new Promise((resolve) => setTimeout(resolve, 5))
    else if (page.entries.length) last = false
  }
  for (const [k, r] of (await done).entries()) assert.is(r.code, 0, `appender ${k} failed: ${r.stderr}`)

  const { entries, cursor: end } = await storage.readLog('shared/journal', 0)
  assert.is(entries.length, 6 * 60 * 3, 'every entry')
  assert.is(end, await storage.logEnd('shared/journal'))
  assert.equal(followed, entries, 'the follower read the same entries in the same order')
  const raw = readFileSync(logFile(root, 'shared/journal'), 'utf8').split('\n')
  assert.is(raw.pop(), '', 'the file ends with a newline')
  // Empty lines are allowed: an appender that finds another's large write still landing takes it for torn and starts with a newline.
  assert.ok(raw.every((line) => line === '' || typeof JSON.parse(line) === 'string'), 'every line is one whole entry')
  for (let i = 0; i < entries.length; i += 3) {
    const [worker, call] = entries[i]!.split(':')
    assert.ok(entries[i]!.startsWith(`${worker}:${call}:0 ü\nsecond line`), `entry ${i} opens a call`)
    assert.ok(entries[i + 1]!.startsWith(`${worker}:${call}:1`), `entry ${i + 1} is the same call's second`)
    assert.is(entries[i + 1]!.length, `${worker}:${call}:1`.length + (Number(call) % 5 === 0 ? 100_001 : 0), 'large entries whole')
    assert.is(entries[i + 2], `${worker}:${call}:2 "quoted" \\ ✓`, `entry ${i + 2} closes it`)
  }
  for (let k = 0; k < 6; k++) {
    const calls = entries.filter((e, i) => i % 3 === 0 && e.startsWith(`${k}:`)).map((e) => Number(e.split(':')[1]))
    assert.equal(calls, Array.from({ length: 60 }, (_, i) => i), `appender ${k}: every call, in its order`)
  }
})

test.run()
