import { spawn, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { BenchContext } from '../lib/context.js'
import { syntheticFacts } from '../lib/corpus.js'
import { latency, ms, sample } from '../lib/measure.js'

/** What this section uses of the SDK's `Client`. */
interface McpClient {
  connect(transport: unknown): Promise<void>
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>
  close(): Promise<void>
}

const mcpPackage = createRequire(import.meta.url).resolve('@foundry/cli/package.json')
const fromMcp = createRequire(mcpPackage)
const { Client } = fromMcp('@modelcontextprotocol/sdk/client/index.js') as {
  Client: new (info: { name: string; version: string }) => McpClient
}
const { StreamableHTTPClientTransport } = fromMcp('@modelcontextprotocol/sdk/client/streamableHttp.js') as {
  StreamableHTTPClientTransport: new (url: URL, options?: unknown) => unknown
}
const BIN = join(dirname(mcpPackage), 'dist', 'bin', 'foundry.js')
const HOOK_BIN = createRequire(import.meta.url).resolve('@foundry/hooks/bin')

/**
 * Team mode (`foundry mcp --http`) on the project `searchRoundTrip` seeded: memory_search round trip
 * over Streamable HTTP (against the stdio figure above), search throughput with 1, 4 and 16 clients,
 * and `foundry-hook prompt-context` answered by the team server (against the hook in its own process).
 */
export async function teamMode(ctx: BenchContext, root: string, size: number): Promise<void> {
  const server = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', '--root', root], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, FOUNDRY_HOOK_SERVER: 'off', FOUNDRY_TOKENS: 'bench:read:bench-secret' },
  })
  let stderr = ''
  server.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`foundry mcp --http did not listen: ${stderr}`)), 60_000)
      server.stderr!.on('data', () => {
        const found = /serving MCP over HTTP at (\S+)/.exec(stderr)?.[1]
        if (found) {
          clearTimeout(timer)
          resolve(found)
        }
      })
    })
    const queries = syntheticFacts(ctx, size + 200)
      .slice(size)
      .map((f) => f.title.split(' ').slice(0, 4).join(' '))
    const query = (i: number) => queries[Math.abs(i) % queries.length]!
    const connect = async () => {
      const client = new Client({ name: 'foundry-bench', version: '1.0.0' })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: 'Bearer bench-secret' } },
        }),
      )
      return client
    }
    const client = await connect()
    const n = ctx.quick ? 50 : 300
    const search = await sample(n, (i) => client.callTool({ name: 'memory_search', arguments: { query: query(i) } }), n)
    ctx.report({
      suite: 'mcp',
      figure: `memory_search round trip p50 / p99 @${size / 1000}k (Streamable HTTP, bearer token)`,
      value: `${ms(search.p50)} / ${ms(search.p99)} ms`,
      baseline: 'stdio: the row above',
    })
    await client.close()

    // Throughput: each client calls memory_search back to back for a fixed time.
    const seconds = ctx.quick ? 2 : 5
    for (const count of [1, 4, 16]) {
      const clients = await Promise.all(Array.from({ length: count }, connect))
      const until = performance.now() + seconds * 1000
      const samples: number[] = []
      await Promise.all(
        clients.map(async (c, k) => {
          for (let i = 0; performance.now() < until; i++) {
            const t = performance.now()
            await c.callTool({ name: 'memory_search', arguments: { query: query(k * 1000 + i) } })
            samples.push(performance.now() - t)
          }
        }),
      )
      await Promise.all(clients.map((c) => c.close()))
      const l = latency(samples)
      ctx.report({
        suite: 'mcp',
        figure: `team server throughput, ${count} client${count > 1 ? 's' : ''} (memory_search @${size / 1000}k, HTTP)`,
        value: `${(samples.length / seconds).toFixed(0)} calls/s`,
        baseline: `p50 ${ms(l.p50)} ms, p99 ${ms(l.p99)} ms`,
      })
    }

    // foundry-hook prompt-context: against the team server, and in its own process on the same project.
    const input = JSON.stringify({
      session_id: 'bench',
      transcript_path: join(root, 't.jsonl'),
      cwd: root,
      hook_event_name: 'UserPromptSubmit',
      prompt: `Why did we decide this: ${query(7)}?`,
    })
    const runs = ctx.quick ? 5 : 15
    const team: number[] = []
    const local: number[] = []
    const { FOUNDRY_ROOT, CLAUDE_PROJECT_DIR, ...env } = process.env
    for (let i = 0; i < runs; i++) {
      team.push(
        timeHook(input, { ...env, FOUNDRY_HOOK_SERVER: 'off', FOUNDRY_URL: url, FOUNDRY_TOKEN: 'bench-secret' }),
      )
      local.push(timeHook(input, { ...env, FOUNDRY_HOOK_SERVER: 'off' }))
    }
    ctx.report({
      suite: 'mcp',
      figure: `foundry-hook prompt-context via the team server @${size / 1000}k p50`,
      value: `${ms(latency(team).p50)} ms`,
      baseline: `own process ${ms(latency(local).p50)} ms`,
    })
  } finally {
    server.kill('SIGTERM')
    await new Promise((resolve) => server.once('exit', resolve))
  }
}

function timeHook(input: string, env: NodeJS.ProcessEnv): number {
  const start = performance.now()
  const run = spawnSync(process.execPath, [HOOK_BIN, 'prompt-context'], {
    input,
    env,
    encoding: 'utf8',
    timeout: 30_000,
  })
  if (run.status !== 0 || run.stderr) throw new Error(`foundry-hook prompt-context failed: ${run.stderr}`)
  return performance.now() - start
}
