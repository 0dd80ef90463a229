import { openProject } from '@foundry/project'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createServer } from '@foundry/mcp'
import { cleanup, cli, tempDir, tempProject } from './helpers.js'
import { startInitialized, textOf, toolCall, type RawServer } from './raw.js'

/**
 * Issue 14, item 2: 1,000 requests in flight at once (writes and searches mixed) over stdio. The
 * server used to grow to GBs until V8 ran out of memory, and on SQLite die at once with a TypeError
 * inside MiniSearch's vacuuming. Now: it survives, its peak memory stays bounded, and every write is
 * either acknowledged and stored or refused as busy.
 */
const REQUESTS = 1000
/** Facts stored before the burst: a search then has postings to read, and a superseding write a fact to replace. */
const SEEDED = 400
/** Peak resident set allowed under the burst, MiB (a fresh server is ~60). */
const RSS_LIMIT_MIB = 300
/** The burst takes what the machine gives it: it fails only when the server stops answering for this long. */
const STALLED_MS = 120_000

/**
 * The answers to `ids`, however long they take: rejects when the server exits before answering
 * (`answer` then rejects) or when no message at all arrives for STALLED_MS.
 */
async function answersTo(server: RawServer, ids: number[]) {
  const all = Promise.all(ids.map((id) => server.answer(id, 2 ** 31 - 1))) // the longest timer Node keeps: no time bound of its own
  let settled = false
  void all.then(
    () => (settled = true),
    () => (settled = true),
  )
  let seen = -1
  let since = Date.now()
  while (!settled) {
    const count = server.received().length
    if (count !== seen) (seen = count), (since = Date.now())
    else if (Date.now() - since > STALLED_MS) {
      server.child.kill('SIGKILL') // its exit ends every wait
      throw new Error(
        `no message from the server for ${STALLED_MS / 1000} s, ${count} received; stderr: ${server.stderr().slice(-500)}`,
      )
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return all
}

for (const storage of ['fs', 'sqlite'] as const) {
  const test = suite(`burst: ${REQUESTS} requests in flight (${storage})`)
  test.after(cleanup)

  test(`no crash, bounded memory, every write acknowledged and stored or refused as busy (${storage})`, async () => {
    const root = tempDir()
    const init = cli(['init', '--storage', storage], { cwd: root })
    assert.is(init.code, 0, init.stderr)
    const server = await startInitialized(root)
    try {
      const fact = (n: number, version: string) => ({
        title: `Service s${n} retries its queue`,
        body: `Version ${version}: service s${n} retries the queue of burst ${n} with backoff.`,
        type: 'convention',
      })
      const seeded = Array.from({ length: SEEDED }, (_, n) => toolCall(100_000 + n, 'memory_write', fact(n, 'one')))
      await server.send(...seeded)
      for (const answer of await answersTo(
        server,
        seeded.map((m) => (m as { id: number }).id),
      ))
        assert.not.ok(answer.result?.isError, textOf(answer))
      const messages: object[] = []
      // Every third request rewrites a seeded fact (a superseding write), the others search.
      const writes = new Map<number, string>()
      for (let i = 1; i <= REQUESTS; i++) {
        if (i % 3 === 0) {
          writes.set(i, `Version two of ${i}`)
          messages.push(
            toolCall(i, 'memory_write', {
              ...fact(i % SEEDED, 'two'),
              body: `Version two of ${i}: service s${i % SEEDED} retries with jitter.`,
            }),
          )
        } else messages.push(toolCall(i, 'memory_search', { query: `service s${i % SEEDED} queue retries` }))
      }
      await server.send(...messages)
      const answers = await answersTo(
        server,
        messages.map((_, i) => i + 1),
      )
      assert.ok(server.alive(), `the server exited: ${server.stderr().slice(-800)}`)
      const peak = server.peakRssMiB()
      let acknowledged = 0
      let busy = 0
      const stored: string[] = []
      for (const [id, body] of writes) {
        const answer = answers[id - 1]!
        const text = textOf(answer)
        if (answer.result?.isError) {
          assert.match(text, /^memory_write refused: the server is busy/, `write ${id}: ${text}`)
          busy++
        } else {
          assert.match(text, /^created: fact-\d{4}/, `write ${id}: ${text}`)
          acknowledged++
          stored.push(body)
        }
      }
      for (const [i, answer] of answers.entries()) {
        if (writes.has(i + 1)) continue
        const text = textOf(answer)
        if (answer.result?.isError) assert.match(text, /^memory_search refused: the server is busy/, text)
      }
      console.log(
        `  burst (${storage}): ${REQUESTS} requests, ${acknowledged} writes acknowledged, ${busy} refused busy, peak RSS ${peak.toFixed(0)} MiB`,
      )
      assert.ok(peak < RSS_LIMIT_MIB, `peak RSS ${peak.toFixed(0)} MiB`)
      const { code } = await server.close()
      assert.is(code, 0, server.stderr())
      // What was acknowledged is stored (read back by another process).
      const list = cli(['list', '--json', '--status', 'all'], { cwd: root })
      assert.is(list.code, 0, list.stderr)
      const facts = JSON.parse(list.stdout).facts as { body: string }[]
      const bodies = new Set(facts.map((f) => f.body.split(':')[0]))
      for (const body of stored) assert.ok(bodies.has(body), `acknowledged but not stored: ${body}`)
      assert.is(facts.length, SEEDED + acknowledged)
    } finally {
      if (server.alive()) server.child.kill('SIGKILL')
    }
  })

  test.run()
}

const busy = suite('burst: the bound on work in flight')
busy.after(cleanup)

busy(
  'past running + waiting, a tool call is refused as busy at once, before any work; the rest are served',
  async () => {
    const project = await openProject({ root: tempProject() })
    const server = createServer({ kernel: project.kernel, log: () => {}, limits: { running: 1, waiting: 3 } })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const client = new Client({ name: 'burst', version: '1' })
    await client.connect(clientSide)
    try {
      const results = (await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          client.callTool({
            name: 'memory_write',
            arguments: { title: `Limit rule ${i} is kept`, body: `Body ${i}.`, type: 'convention' },
          }),
        ),
      )) as CallToolResult[]
      const texts = results.map((r) => (r.content[0] as { text: string }).text)
      const refused = texts.filter((t) => t.startsWith('memory_write refused: the server is busy'))
      assert.is(refused.length, 8, texts.join('\n'))
      assert.match(
        refused[0]!,
        /^memory_write refused: the server is busy \(4 requests in flight, the limit is 4\); nothing was done: retry in a moment$/,
      )
      assert.is(texts.filter((t) => t.startsWith('created: fact-')).length, 4)
      assert.is((await project.kernel.memory.list({ status: 'all' })).length, 4, 'the refused writes wrote nothing')
    } finally {
      await client.close()
      await project.close()
    }
  },
)

busy.run()
