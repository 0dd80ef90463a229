import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fsStorage } from '@foundry/adapter-fs'
import { openProject } from '@foundry/project'
import type { BenchContext, Suite } from '../lib/context.js'
import { seedFacts, syntheticFacts } from '../lib/corpus.js'
import { latency, ms, sample } from '../lib/measure.js'
import { teamMode } from './mcp-team.js'

/** What this suite uses of the SDK's `Client`. */
interface McpClient {
  connect(transport: unknown): Promise<void>
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>
  ping(): Promise<unknown>
  close(): Promise<void>
}

// The SDK client is resolved from @foundry/mcp, whose dependency it is: the version the server is built with.
const mcpPackage = createRequire(import.meta.url).resolve('@foundry/mcp/package.json')
const fromMcp = createRequire(mcpPackage)
const { Client } = fromMcp('@modelcontextprotocol/sdk/client/index.js') as { Client: new (info: { name: string; version: string }) => McpClient }
const { StdioClientTransport, getDefaultEnvironment } = fromMcp('@modelcontextprotocol/sdk/client/stdio.js') as {
  StdioClientTransport: new (options: { command: string; args: string[]; stderr: 'inherit' }) => unknown
  /** What the SDK client passes a server it spawns (PATH, HOME, …): no NODE_OPTIONS, no NODE_EXTRA_CA_CERTS. */
  getDefaultEnvironment(): Record<string, string>
}
const BIN = join(dirname(mcpPackage), 'dist', 'bin', 'foundry.js')

/** `foundry mcp` over stdio with the SDK client: memory_search round trips at 10k facts, start-up against bare node, and `foundry list` at 1k facts. */
export const mcpSuite: Suite = {
  name: 'mcp',
  about: '`foundry mcp` over stdio and Streamable HTTP (team mode: round trip, throughput with 1/4/16 clients, foundry-hook via the team server): memory_search round trip at 10k facts (SDK client), spawn+initialize vs bare node; `foundry list` at 1k facts vs bare node',
  async run(ctx) {
    await searchRoundTrip(ctx)
    await startUp(ctx)
    await cliList(ctx)
  },
}

async function searchRoundTrip(ctx: BenchContext): Promise<void> {
  const size = ctx.quick ? 1000 : 10_000
  const root = join(ctx.scratch, `mcp-${size}`)
  const storage = fsStorage({ root, durable: false })
  await seedFacts(ctx, storage, size)
  await storage.close?.()

  // A first session builds the retriever's index and leaves its snapshot, as every project's first session does.
  const first = await connect(root)
  await first.callTool({ name: 'memory_search', arguments: { query: 'warm up the index' } })
  await first.close()

  // The figures come from a later session: the server restores the snapshot instead of rebuilding.
  const client = await connect(root)
  try {
    const queries = syntheticFacts(ctx, size + 200)
      .slice(size)
      .map((f) => f.title.split(' ').slice(0, 4).join(' '))
    const query = (i: number) => queries[Math.abs(i) % queries.length]!
    const start = performance.now()
    await client.callTool({ name: 'memory_search', arguments: { query: query(0) } })
    const firstSearch = performance.now() - start
    const n = ctx.quick ? 50 : 300
    // Steady state: every query runs once untimed first (a restored index loads what a query needs on first use).
    const search = await sample(n, (i) => client.callTool({ name: 'memory_search', arguments: { query: query(i) } }), n)
    const ping = await sample(n, () => client.ping())
    // The same searches in-process on the same project: what the round trip adds is the protocol's share.
    const project = await openProject({ root })
    const local = await sample(n, (i) => project.kernel.memory.search({ query: query(i) }), n)
    await project.close()
    ctx.report({
      suite: 'mcp',
      figure: `memory_search round trip p50 / p99 @${size / 1000}k (stdio, fs storage)`,
      value: `${ms(search.p50)} / ${ms(search.p99)} ms`,
      baseline: `in-process ${ms(local.p50)} / ${ms(local.p99)} ms; ping ${ms(ping.p50)} ms`,
      target: 'p50 ≤ 2 ms',
      met: search.p50 <= 2,
    })
    ctx.report({ suite: 'mcp', figure: `first memory_search of a session @${size / 1000}k (snapshot restored)`, value: `${ms(firstSearch)} ms` })
  } finally {
    await client.close()
  }
  // Team mode on the same project: the round trip over HTTP, throughput with 1, 4 and 16 clients, the hook via the server.
  await teamMode(ctx, root, size)
}

async function startUp(ctx: BenchContext): Promise<void> {
  const root = join(ctx.scratch, 'mcp-startup')
  mkdirSync(root, { recursive: true })
  const empty = join(ctx.scratch, 'empty.mjs')
  writeFileSync(empty, '')
  const bare: number[] = []
  const server: number[] = []
  // Interleaved, so a busy moment of the machine weighs on both.
  for (let i = 0; i < (ctx.quick ? 5 : 25); i++) {
    bare.push(await timeBareNode(empty))
    server.push(await timeSpawnInitialize(root))
  }
  const b = latency(bare).p50
  const s = latency(server).p50
  ctx.report({
    suite: 'mcp',
    figure: '`foundry mcp` spawn + initialize p50',
    value: `${ms(s)} ms`,
    baseline: `bare node ${ms(b)} ms`,
    ratio: s / b,
    target: '≤ 2×',
    met: s / b <= 2,
  })
}

/** A CLI call as a user makes it: `foundry list` on a project of 1k facts, against `node -e 0`, median of 10 each, interleaved. */
async function cliList(ctx: BenchContext): Promise<void> {
  const root = join(ctx.scratch, 'cli-1k')
  const storage = fsStorage({ root, durable: false })
  await seedFacts(ctx, storage, 1000)
  await storage.close?.()
  await timeProcess(['-e', '0'])
  await timeProcess([BIN, 'list', '--root', root]) // the first call may write what later ones read
  const bare: number[] = []
  const list: number[] = []
  for (let i = 0; i < 10; i++) {
    bare.push(await timeProcess(['-e', '0']))
    list.push(await timeProcess([BIN, 'list', '--root', root]))
  }
  const b = latency(bare).p50
  const l = latency(list).p50
  ctx.report({
    suite: 'mcp',
    figure: '`foundry list` @1k facts, start to exit (median of 10)',
    value: `${ms(l)} ms`,
    baseline: `node -e 0 ${ms(b)} ms`,
    ratio: l / b,
    target: '≤ 2×',
    met: l / b <= 2,
  })
}

/** Spawn node with `args`, output discarded, and wait for it to exit (the SDK client's environment, as above); rejects on a non-zero exit. */
async function timeProcess(args: string[]): Promise<number> {
  const start = performance.now()
  const child = spawn(process.execPath, args, { stdio: 'ignore', env: getDefaultEnvironment() })
  const code = await new Promise((resolve) => child.once('exit', resolve))
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited ${code}`)
  return performance.now() - start
}

async function connect(root: string): Promise<McpClient> {
  const client = new Client({ name: 'foundry-bench', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', root], stderr: 'inherit' }))
  return client
}

/**
 * Spawn `node empty.mjs` and wait for it to exit, in the environment the SDK client gives the server:
 * an inherited NODE_EXTRA_CA_CERTS alone adds tens of milliseconds to every start here, and would
 * flatter the ratio.
 */
async function timeBareNode(script: string): Promise<number> {
  const start = performance.now()
  const child = spawn(process.execPath, [script], { stdio: 'ignore', env: getDefaultEnvironment() })
  await new Promise((resolve) => child.once('exit', resolve))
  return performance.now() - start
}

/** Spawn `foundry mcp` and connect the SDK client: the time until initialize is answered. */
async function timeSpawnInitialize(root: string): Promise<number> {
  const start = performance.now()
  const client = await connect(root)
  const elapsed = performance.now() - start
  await client.close()
  return elapsed
}
