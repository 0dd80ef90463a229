import pg from 'pg'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Storage } from '@foundry/kernel'
import type { StorageChange } from '@foundry/kernel/adapter'
import { sampleFact } from '@foundry/kernel/testing'
import { postgresStorage } from '../src/index.js'
import { runChild, startChild, waitForLine } from './child.js'
import { useServer } from './helpers.js'

const server = useServer(test)

/** Resolves once `predicate` holds, polling; rejects after `ms`. */
async function eventually(predicate: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms
  while (!(await predicate())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

test('another process is told of a put and an append through NOTIFY', async () => {
  const url = await server.fresh()
  const watcher = startChild('watcher', [url])
  let lines: string[] = []
  watcher.stdout.on('data', (d) => (lines = [...lines, ...String(d).split('\n').filter(Boolean)]))
  await waitForLine(watcher, 'ready')
  const storage = await postgresStorage({ url })
  try {
    await storage.put('marbles.runs', 'run-1', { state: 'running' })
    await storage.appendLog('marbles/run-1', ['started'])
    await eventually(() => lines.includes('{"log":"marbles/run-1"}'), 'the append')
    assert.ok(lines.includes('{"collection":"marbles.runs"}'), `the put was reported: ${lines.join(' | ')}`)
    assert.ok(
      lines.indexOf('{"collection":"marbles.runs"}') < lines.indexOf('{"log":"marbles/run-1"}'),
      'in commit order',
    )
  } finally {
    watcher.stdin.end()
    await storage.close?.()
  }
})

test('a section that rolls back notifies nobody; one that commits notifies once it has', async () => {
  const url = await server.fresh()
  const storage = await postgresStorage({ url })
  const other = await postgresStorage({ url, revisionCache: false })
  const seen: StorageChange[] = []
  const stop = storage.onChange!((change) => (isProbe(change) ? undefined : seen.push(change)))
  try {
    await listening(storage)
    seen.length = 0
    await storage
      .exclusive(async () => {
        await storage.put('marbles.runs', 'a', 1)
        throw new Error('roll back')
      })
      .catch(() => undefined)
    await storage.exclusive(async () => {
      await storage.put('meta', 'b', 'kept')
      await caughtUp(storage, other) // a write committed after the put is heard: a notice sent before the commit is in too
      assert.equal(seen, [], 'nothing is told before the commit')
    })
    await eventually(() => seen.length > 0, 'the committed section')
    await caughtUp(storage, other) // a second notice of the section would have come before this one
    assert.equal(seen, [{ collection: 'meta' }], 'only the committed write, once')
  } finally {
    stop()
    await other.close?.()
    await storage.close?.()
  }
})

test("revision() answers from its cache, and learns of another process's write through NOTIFY", async () => {
  const url = await server.fresh()
  const storage = await postgresStorage({ url })
  try {
    // Wait for the listener: the cache is trusted only while it is connected.
    await listening(storage)
    const before = await storage.revision('facts')
    assert.is(await storage.revision('facts'), before, 'stable')
    await runChild('writer', [url, 'put', 'facts', `fact-0001=${JSON.stringify(sampleFact(1))}`])
    await eventually(async () => (await storage.revision('facts')) !== before, 'the cached revision to change')
    assert.equal(await storage.keys('facts'), ['fact-0001'])
  } finally {
    await storage.close?.()
  }
})

test('the listener reconnects when its session is killed, and changes are reported again', async () => {
  const url = await server.fresh()
  const storage = await postgresStorage({ url })
  const other = await postgresStorage({ url, revisionCache: false })
  const seen: StorageChange[] = []
  const stop = storage.onChange!((change) =>
    'collection' in change && change.collection === 'test.probe' ? undefined : seen.push(change),
  )
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    await listening(storage)
    const killed = await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN foundry_change' AND datname = current_database()",
    )
    assert.is(killed.rowCount, 1, 'one listening session')
    const r1 = await storage.revision('meta')
    await other.put('meta', 'after', 'kill')
    // While the listener is away the cache is not trusted; once it is back, it was cleared.
    await eventually(async () => (await storage.revision('meta')) !== r1, 'the revision after the kill')
    seen.length = 0
    await eventually(
      async () => (
        await other.put('marbles.runs', 'x', 1), seen.some((c) => 'collection' in c && c.collection === 'marbles.runs')
      ),
      'a change after the reconnection',
    )
  } finally {
    stop()
    await admin.end()
    await other.close?.()
    await storage.close?.()
  }
})

test('a short-lived process with a listener closes and exits by itself, at once', async () => {
  const url = await server.fresh()
  let bound: NodeJS.Timeout | undefined
  const hung = new Promise<string>(
    (resolve) => (bound = setTimeout(() => resolve('still running after 60 s: a connection kept it alive'), 60_000)),
  )
  const out = await Promise.race([runChild('short-lived', [url]), hung]).finally(() => clearTimeout(bound))
  assert.is(out.trim(), 'closed', 'ran to the end (exit 0) and exited by itself')
})

/** Resolves once `storage`'s listener hears a write (probes in a collection of their own, which the cases ignore). */
async function listening(storage: Storage): Promise<void> {
  let heard = false
  const stop = storage.onChange!(
    (change) => void ('collection' in change && change.collection === 'test.probe' && (heard = true)),
  )
  await eventually(async () => (await storage.put('test.probe', 'p', 1), heard), 'the listener')
  stop()
  await caughtUp(storage, storage) // the notices of the last probes are in before a case starts counting
}

/** The cases' own probe and marker writes, which they leave out of what they count. */
function isProbe(change: StorageChange): boolean {
  return 'collection' in change ? change.collection === 'test.probe' : change.log.startsWith('test/marker-')
}

let markers = 0
/**
 * Resolves once `storage`'s listener hears a marker that `writer` commits now (outside any section of
 * `storage`): NOTIFY delivers in commit order, so every change committed before it has been heard too.
 */
async function caughtUp(storage: Storage, writer: Storage): Promise<void> {
  const log = `test/marker-${++markers}`
  let heard = false
  const stop = storage.onChange!((change) => void ('log' in change && change.log === log && (heard = true)))
  try {
    await writer.appendLog(log, ['marker'])
    await eventually(() => heard, `the marker ${log}`, 60_000)
  } finally {
    stop()
  }
}

test.run()
