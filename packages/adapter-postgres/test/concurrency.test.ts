import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { postgresStorage } from '../src/index.js'
import { startChild, waitForLine } from './child.js'
import { sampleFact } from '@foundry/kernel/testing'
import { failure, useServer } from './helpers.js'

const server = useServer(test)

test("a section waits for another process's, then gives up with UNAVAILABLE after its timeout; writes to other collections go on meanwhile", async () => {
  const url = await server.fresh()
  const holder = startChild('hold-section', [url])
  await waitForLine(holder, 'holding')
  const storage = await postgresStorage({ url, timeout: 300 })
  try {
    const started = Date.now()
    const error = await failure(() => storage.exclusive(async () => 'never'))
    assert.is(error.code, 'UNAVAILABLE')
    assert.match(error.message, "waited more than 300 ms for another process's exclusive write section")
    assert.ok(Date.now() - started >= 250, 'it waited')
    assert.not.match(error.message, new URL(url).password)
    await storage.put('marbles.runs', 'outside', 'a plain write to another collection does not wait for the section')
    const same = await failure(() =>
      storage.put('meta', 'outside', 'the section wrote meta: this waits for its commit'),
    )
    assert.is(same.code, 'UNAVAILABLE', 'a write to a collection the section wrote waits, bounded by the timeout')
    assert.is(await storage.get('meta', 'holder'), undefined, "the holder's write is not visible before its commit")
    holder.stdin.end()
    await new Promise((resolve) => holder.on('close', resolve))
    assert.is(
      await storage.exclusive(async () => storage.get('meta', 'holder')),
      String(holder.pid),
      "the section is free again, and sees the holder's commit",
    )
  } finally {
    holder.kill()
    await storage.close?.()
  }
})

test("a section's holder that dies releases the section: its writes roll back", async () => {
  const url = await server.fresh()
  const holder = startChild('hold-section', [url])
  await waitForLine(holder, 'holding')
  holder.kill('SIGKILL')
  await new Promise((resolve) => holder.on('close', resolve))
  const storage = await postgresStorage({ url, timeout: 10_000 })
  try {
    assert.is(
      await storage.exclusive(async () => storage.get('meta', 'holder')),
      undefined,
      'the killed section left nothing',
    )
  } finally {
    await storage.close?.()
  }
})

test("inside a section: changes() brings the changed records along, a get after the section's own write reads that write, and the revision after it is the committed one", async () => {
  const url = await server.fresh()
  const mine = await postgresStorage({ url })
  const other = await postgresStorage({ url })
  try {
    await other.put('facts', 'fact-0002', sampleFact(2))
    const since = await mine.revision('facts')
    await other.put('facts', 'fact-0001', sampleFact(1, { title: 'first' }))
    await other.put('facts', 'fact-0001', sampleFact(1, { title: 'second' }))
    await other.delete('facts', 'fact-0002')
    const inside = await mine.exclusive(async () => {
      const keys = await mine.changes!('facts', since)
      const read = await mine.get('facts', 'fact-0001')
      const gone = await mine.get('facts', 'fact-0002')
      await mine.put('facts', 'fact-0001', sampleFact(1, { title: 'third' }))
      const again = await mine.get('facts', 'fact-0001')
      return { keys, read: read?.title, gone, again: again?.title, revision: await mine.revision('facts') }
    })
    assert.equal(inside.keys, ['fact-0001', 'fact-0001', 'fact-0002'])
    assert.is(inside.read, 'second', 'the latest value')
    assert.is(inside.gone, undefined, 'a deleted record reads as missing')
    assert.is(inside.again, 'third', "the section's own write, not what changes() brought")
    const fresh = await postgresStorage({ url, revisionCache: false })
    assert.is(
      await fresh.revision('facts'),
      inside.revision,
      'the revision the section saw after its write is the one committed',
    )
    await fresh.close?.()
  } finally {
    await mine.close?.()
    await other.close?.()
  }
})

test("a section that read a collection's revision holds it: another process's write to it waits for the section, so the section's reads agree", async () => {
  const url = await server.fresh()
  const mine = await postgresStorage({ url })
  const other = await postgresStorage({ url, timeout: 300 })
  try {
    await other.put('facts', 'fact-0001', sampleFact(1))
    const seen = await mine.exclusive(async () => {
      const first = await mine.revision('facts')
      const blocked = await failure(() => other.put('facts', 'fact-0002', sampleFact(2)))
      return { first, second: await mine.revision('facts'), code: blocked.code }
    })
    assert.is(seen.code, 'UNAVAILABLE', 'the other write waited for the section, then gave up at its timeout')
    assert.is(seen.second, seen.first)
    await other.put('facts', 'fact-0002', sampleFact(2))
    assert.is.not(await mine.exclusive(() => mine.revision('facts')), seen.first, 'after the section, writes go on')
  } finally {
    await mine.close?.()
    await other.close?.()
  }
})

test.run()
