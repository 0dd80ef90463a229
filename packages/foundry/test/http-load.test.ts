// Load: 16 HTTP clients writing and searching one memory at once for a bounded time (FOUNDRY_LOAD_SECONDS, default 10).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { BIN, cleanup, cli, tempProject } from './helpers.js'
import { httpClient, startHttp } from './http-helpers.js'

const CLIENTS = 16
const SECONDS = Number(process.env.FOUNDRY_LOAD_SECONDS) || 10
const WORDS =
  'amber basil cedar delta ember fjord gravel harbor indigo juniper kelp lantern maple nectar opal pepper quartz river saffron timber umber velvet willow xenon yarrow zephyr'.split(
    ' ',
  )
const word = (n: number) => WORDS[n % WORDS.length]! + WORDS[Math.floor(n / WORDS.length) % WORDS.length]!

test(`${CLIENTS} clients write and search one memory for ${SECONDS} s: nothing lost, ids gapless, p99 reported`, async () => {
  const root = tempProject()
  const server = await startHttp(BIN, ['mcp', '--http', '--port', '0', '--root', root], { FOUNDRY_HOOK_SERVER: 'off' })
  try {
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, () => httpClient(server.url, server.localToken())),
    )
    const until = Date.now() + SECONDS * 1000
    const latencies: number[] = []
    const written: string[] = []
    let errors = 0
    let searches = 0
    await Promise.all(
      clients.map(async (client, c) => {
        for (let i = 0; Date.now() < until && i < 100_000; i++) {
          const tag = `${word(c)}${word(i)}`
          let start = performance.now()
          const result = (await client.callTool({
            name: 'memory_write',
            arguments: {
              type: 'convention',
              title: `Client ${c} convention ${tag} holds`,
              body: `The ${tag} module of client ${c} follows convention number ${i}.`,
            },
          })) as CallToolResult
          latencies.push(performance.now() - start)
          const id = (result.structuredContent as { id?: string; action?: string } | undefined)?.id
          if (result.isError || !id) errors++
          else written.push(id)
          start = performance.now()
          const found = (await client.callTool({ name: 'memory_search', arguments: { query: tag } })) as CallToolResult
          latencies.push(performance.now() - start)
          searches++
          if (found.isError) errors++
        }
      }),
    )
    await Promise.all(clients.map((c) => c.close()))
    assert.is(errors, 0, 'no call failed')
    assert.is(new Set(written).size, written.length, 'every write got its own id')
    const numbers = written.map((id) => Number(id.slice(5))).sort((a, b) => a - b)
    assert.equal(
      numbers,
      Array.from({ length: numbers.length }, (_, i) => i + 1),
      'ids gapless from fact-0001',
    )
    latencies.sort((a, b) => a - b)
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1)
    console.log(
      `  load: ${CLIENTS} clients, ${SECONDS} s: ${written.length} writes + ${searches} searches = ${((written.length + searches) / SECONDS).toFixed(0)} calls/s; latency p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`,
    )
    assert.is(await server.stop(), 0)
    // Nothing lost: every fact is stored, read back by a new process.
    const listed = cli(['list', '--json', '--status', 'all', '--root', root])
    assert.is(listed.code, 0, listed.stderr)
    const stored = new Set((JSON.parse(listed.stdout) as { facts: Array<{ id: string }> }).facts.map((f) => f.id))
    for (const id of written) assert.ok(stored.has(id), `${id} stored`)
  } finally {
    if (server.child.exitCode === null) await server.stop()
    cleanup()
  }
})

test.run()
