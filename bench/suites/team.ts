import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import pg from 'pg'
import { createDatabase, startTestDatabase } from '@foundry/adapter-postgres/testing'
import type { BenchContext, Suite } from '../lib/context.js'
import { scifactCorpus } from '../lib/corpus.js'
import { latency, ms } from '../lib/measure.js'

/** What this suite uses of the SDK's `Client`. */
interface McpClient {
  connect(transport: unknown): Promise<void>
  callTool(params: {
    name: string
    arguments: Record<string, unknown>
  }): Promise<{ isError?: boolean; content?: Array<{ text?: string }>; structuredContent?: Record<string, unknown> }>
  readResource(params: { uri: string }): Promise<{ contents: Array<{ text?: string }> }>
  close(): Promise<void>
}

const cliPackage = createRequire(import.meta.url).resolve('@foundry/cli/package.json')
const fromCli = createRequire(cliPackage)
const { Client } = fromCli('@modelcontextprotocol/sdk/client/index.js') as {
  Client: new (info: { name: string; version: string }) => McpClient
}
const { StreamableHTTPClientTransport } = fromCli('@modelcontextprotocol/sdk/client/streamableHttp.js') as {
  StreamableHTTPClientTransport: new (url: URL, options?: unknown) => unknown
}
const BIN = join(dirname(cliPackage), 'dist', 'bin', 'foundry.js')

type Op = 'write' | 'search' | 'index'
/** The mix each client draws from: writes, searches, index reads (out of 10). */
const MIX: readonly Op[] = [
  'write',
  'write',
  'write',
  'search',
  'search',
  'search',
  'search',
  'search',
  'index',
  'index',
]

/**
 * Team scale on PostgreSQL: N `foundry mcp --http` servers (each in its own project folder, as on N
 * machines) on one database (fsync on), M clients spread over them for a bounded time, mixing
 * memory_write, memory_search and reads of the memory index. Reports throughput, p50/p99 per
 * operation, losses (acknowledged writes missing from the database afterwards), id gaps, the lag
 * until another server's search finds a write, and how long a revoked token is still accepted.
 * `--servers`, `--clients`, `--seconds` (default 3 × 16 × 60 s; `--quick` 2 × 4 × 5 s).
 */
export const teamSuite: Suite = {
  name: 'team',
  about:
    'N foundry mcp --http servers × M clients on one PostgreSQL database: mixed throughput, p50/p99 per operation, losses, id gaps, cross-server visibility lag, token revocation lag',
  async run(ctx) {
    const servers = ctx.team?.servers ?? (ctx.quick ? 2 : 3)
    const clients = ctx.team?.clients ?? (ctx.quick ? 4 : 16)
    const seconds = ctx.team?.seconds ?? (ctx.quick ? 5 : 60)
    const database = await startTestDatabase({ fsync: true })
    try {
      await measureTeam(ctx, await createDatabase(database.url), { servers, clients, seconds })
    } finally {
      await database.stop()
    }
  },
}

interface Shape {
  servers: number
  clients: number
  seconds: number
}

async function measureTeam(ctx: BenchContext, url: string, shape: Shape): Promise<void> {
  const env = { ...process.env, FOUNDRY_DATABASE_URL: url, FOUNDRY_HOOK_SERVER: 'off' }
  const roots = Array.from({ length: shape.servers }, (_, k) => join(ctx.scratch, `team-${k}`))
  const foundry = (root: string, ...args: string[]) => {
    const run = spawnSync(process.execPath, [BIN, ...args], { cwd: root, env, encoding: 'utf8', timeout: 120_000 })
    if (run.status !== 0) throw new Error(`foundry ${args.join(' ')}: ${run.stderr}`)
    return run.stdout
  }
  for (const root of roots) {
    mkdirSync(root, { recursive: true })
    foundry(root, 'init', '--storage', 'postgres')
  }
  const secret = JSON.parse(foundry(roots[0]!, 'token', 'create', '--role', 'read+write', '--name', 'bench', '--json'))
    .secret as string
  const processes = await Promise.all(roots.map((root) => startServer(root, env)))
  const connect = async (k: number) => {
    const client = new Client({ name: 'foundry-bench-team', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(processes[k]!.url), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
      }),
    )
    return client
  }
  try {
    const corpus = scifactCorpus(ctx)
    const text = (i: number) => corpus[i % corpus.length]!
    // A seed, so searches have something to find: 200 facts in one batch through the first server.
    const seeder = await connect(0)
    const seed = Array.from({ length: 200 }, (_, i) => ({
      title: text(i).title.slice(0, 80),
      body: text(i).text.split(/\s+/).slice(0, 60).join(' '),
      type: 'convention',
      scope: `module:seed${i}`,
    }))
    const seeded = await seeder.callTool({ name: 'memory_write', arguments: { facts: seed } })
    if (seeded.isError) throw new Error(`seeding failed: ${seeded.content?.[0]?.text}`)
    await seeder.close()

    const workers = await Promise.all(Array.from({ length: shape.clients }, (_, c) => connect(c % shape.servers)))
    // Untimed: every server loads its retriever and index once before the clock starts.
    await Promise.all(
      workers
        .slice(0, shape.servers)
        .map(
          async (w) => (
            await w.callTool({ name: 'memory_search', arguments: { query: text(1).title } }),
            await w.readResource({ uri: 'foundry://memory/index' })
          ),
        ),
    )
    const samples: Record<Op, number[]> = { write: [], search: [], index: [] }
    const errors: string[] = []
    const acked: string[] = []
    const until = performance.now() + shape.seconds * 1000
    const probes = visibilityProbes(await Promise.all(processes.map((_, k) => connect(k))), until)
    await Promise.all(
      workers.map(async (client, c) => {
        for (let i = 0; performance.now() < until; i++) {
          const op = MIX[(c * 7 + i * 3) % MIX.length]!
          const doc = text(c * 1009 + i * 13)
          const t = performance.now()
          try {
            if (op === 'write') {
              const result = await client.callTool({
                name: 'memory_write',
                arguments: {
                  title: `Load ${c}-${i}: ${doc.title.slice(0, 60)}`,
                  body: `${doc.text
                    .split(/\s+/)
                    .slice(i % 50, (i % 50) + 50)
                    .join(' ')} (client ${c}, write ${i})`,
                  type: 'convention',
                  scope: `module:load${c}x${i}`,
                },
              })
              if (result.isError) throw new Error(result.content?.[0]?.text ?? 'write failed')
              const id = result.structuredContent?.id
              if (typeof id === 'string' && result.structuredContent?.action === 'created') acked.push(id)
            } else if (op === 'search') {
              const result = await client.callTool({
                name: 'memory_search',
                arguments: { query: doc.title.split(' ').slice(0, 4).join(' ') },
              })
              if (result.isError) throw new Error(result.content?.[0]?.text ?? 'search failed')
            } else await client.readResource({ uri: 'foundry://memory/index' })
            samples[op].push(performance.now() - t)
          } catch (error) {
            errors.push(`${op}: ${(error as Error).message.slice(0, 120)}`)
          }
        }
      }),
    )
    const lags = await probes
    await Promise.all(workers.map((w) => w.close().catch(() => undefined)))
    const stored = await storedFacts(url)
    const lost = acked.filter((id) => !stored.has(id))
    const numbers = [...stored].map((id) => Number(id.slice(5))).sort((a, b) => a - b)
    const gaps = numbers.length ? numbers[numbers.length - 1]! - numbers.length : 0
    const revocation = await revocationLag(roots[1 % roots.length]!, processes, foundry)

    const label = `${shape.servers} servers × ${shape.clients} clients, ${shape.seconds} s`
    const total = samples.write.length + samples.search.length + samples.index.length
    ctx.report({
      suite: 'team',
      figure: `${label}: mixed throughput (3 writes : 5 searches : 2 index reads)`,
      value: `${(total / shape.seconds).toFixed(0)} ops/s`,
      baseline: `${total} operations, ${errors.length} errors${errors[0] ? ` (first: ${errors[0]})` : ''}`,
    })
    for (const op of ['write', 'search', 'index'] as const) {
      const l = latency(samples[op])
      const name = { write: 'memory_write', search: 'memory_search', index: 'memory index read' }[op]
      ctx.report({
        suite: 'team',
        figure: `${label}: ${name} p50 / p99`,
        value: `${ms(l.p50)} / ${ms(l.p99)} ms`,
        baseline: `${samples[op].length} calls, ${(samples[op].length / shape.seconds).toFixed(1)}/s`,
      })
    }
    ctx.report({
      suite: 'team',
      figure: `${label}: acknowledged writes missing afterwards`,
      value: `${lost.length} of ${acked.length}`,
      target: '0',
      met: lost.length === 0,
    })
    ctx.report({
      suite: 'team',
      figure: `${label}: gaps in fact ids (fact-0001 … fact-${String(numbers.at(-1) ?? 0).padStart(4, '0')})`,
      value: String(gaps),
      target: '0',
      met: gaps === 0,
    })
    const [visible, answered] = [latency(lags.visible), latency(lags.answered)]
    ctx.report({
      suite: 'team',
      figure: `${label}: a write on one server visible to another server's memory_search, from the write's answer to the first search that found it, p50 / p99 (${visible.n} probes)`,
      value: `${ms(visible.p50)} / ${ms(visible.p99)} ms`,
      baseline: `to that search's answer ${ms(answered.p50)} / ${ms(answered.p99)} ms`,
      target: '≤ 500 ms',
      met: visible.p99 <= 500,
    })
    ctx.report({
      suite: 'team',
      figure: `${label}, after the load: a revoked token refused by every server, from \`foundry token revoke\` returning to 401 everywhere`,
      value: `${ms(revocation.after)} ms`,
      baseline: `the command itself (a new process opening the project) ${ms(revocation.command)} ms`,
      target: '≤ 1000 ms',
      met: revocation.after <= 1000,
    })
  } finally {
    await Promise.all(processes.map((p) => p.stop()))
  }
}

/**
 * While the load runs: a probe fact written through one server (rotating), then every other server's
 * memory_search polled (back to back, 10 ms apart) from the write's acknowledgement until it finds the
 * fact. `visible`: from the acknowledgement to the start of the first search that found it (from then
 * on that server answers with it: its index is current); `answered`: to that search's answer.
 */
async function visibilityProbes(
  probes: McpClient[],
  until: number,
): Promise<{ visible: number[]; answered: number[] }> {
  const lags = { visible: [] as number[], answered: [] as number[] }
  for (let n = 0; performance.now() < until; n++) {
    const word = `probe${n}q${Math.random().toString(36).slice(2, 8)}`
    const from = n % probes.length
    const written = await probes[from]!.callTool({
      name: 'memory_write',
      arguments: {
        title: `Visibility ${word}`,
        body: `The ${word} marker checks cross-server visibility.`,
        type: 'convention',
        scope: `module:${word}`,
      },
    })
    const acked = performance.now()
    const id = written.structuredContent?.id
    if (written.isError || typeof id !== 'string') continue
    await Promise.all(
      probes.map(async (client, k) => {
        if (k === from) return
        for (;;) {
          const asked = performance.now()
          const found = await client.callTool({ name: 'memory_search', arguments: { query: word } })
          if (found.content?.some((c) => c.text?.includes(id))) {
            lags.visible.push(Math.max(0, asked - acked))
            return void lags.answered.push(performance.now() - acked)
          }
          if (performance.now() - acked > 30_000)
            return void (lags.visible.push(Number.POSITIVE_INFINITY), lags.answered.push(Number.POSITIVE_INFINITY))
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
      }),
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  await Promise.all(probes.map((p) => p.close().catch(() => undefined)))
  return lags
}

/** From `foundry token revoke` returning to the first moment every server answers 401 to that token (polled every 10 ms). */
async function revocationLag(
  root: string,
  processes: ServerProcess[],
  foundry: (root: string, ...args: string[]) => string,
): Promise<{ command: number; after: number }> {
  const secret = JSON.parse(foundry(root, 'token', 'create', '--role', 'read', '--name', 'doomed', '--json'))
    .secret as string
  const status = async (p: ServerProcess) => {
    const answer = await fetch(p.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
      }),
    })
    await answer.body?.cancel()
    return answer.status
  }
  // The token is accepted everywhere first (a server hears of a creation as it hears of a revocation).
  while ((await Promise.all(processes.map(status))).some((s) => s !== 200))
    await new Promise((resolve) => setTimeout(resolve, 10))
  const start = performance.now()
  foundry(root, 'token', 'revoke', 'doomed')
  const revoked = performance.now()
  while ((await Promise.all(processes.map(status))).some((s) => s !== 401))
    await new Promise((resolve) => setTimeout(resolve, 10))
  return { command: revoked - start, after: performance.now() - revoked }
}

/** Every fact id in the database, read straight from the storage's table. */
async function storedFacts(url: string): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ key: string }>(`SELECT key FROM foundry_records WHERE collection = 'facts'`)
    return new Set(rows.map((r) => r.key))
  } finally {
    await client.end()
  }
}

interface ServerProcess {
  url: string
  child: ChildProcess
  stop(): Promise<void>
}

async function startServer(root: string, env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', '--root', root], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
  })
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`foundry mcp --http did not listen: ${stderr}`)), 60_000)
    child.stderr!.on('data', () => {
      const found = /serving MCP over HTTP at (\S+)/.exec(stderr)?.[1]
      if (found) {
        clearTimeout(timer)
        resolve(found)
      }
    })
  })
  return {
    url,
    child,
    async stop() {
      child.kill('SIGTERM')
      await exited
    },
  }
}
