import { spawn } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fsStorage } from '@foundry/adapter-fs'
import { createKernel, factId, type Fact, type Storage } from '@foundry/kernel'
import { minisearchRetriever } from '@foundry/retriever-minisearch'
import { openProject } from '@foundry/project'
import { countTokens } from 'gpt-tokenizer'
import type { BenchContext, Suite } from '../lib/context.js'
import { seedFacts, syntheticFacts } from '../lib/corpus.js'
import { latency, ms, sample } from '../lib/measure.js'
import { KNOWN_ANSWERS, peerRecords, type PeerRecord } from '../lib/peers-records.js'
import { teamMode } from './mcp-team.js'

/** What this suite uses of the SDK's `Client`. */
interface McpClient {
  connect(transport: unknown): Promise<void>
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>
  ping(): Promise<unknown>
  close(): Promise<void>
}

// The SDK client is resolved from @foundry/cli, whose dependency it is: the version the server is built with.
const mcpPackage = createRequire(import.meta.url).resolve('@foundry/cli/package.json')
const fromMcp = createRequire(mcpPackage)
const { Client } = fromMcp('@modelcontextprotocol/sdk/client/index.js') as {
  Client: new (info: { name: string; version: string }) => McpClient
}
const { StdioClientTransport, getDefaultEnvironment } = fromMcp('@modelcontextprotocol/sdk/client/stdio.js') as {
  StdioClientTransport: new (options: {
    command: string
    args: string[]
    stderr: 'inherit'
  }) => { readonly pid: number | null }
  /** What the SDK client passes a server it spawns (PATH, HOME, …): no NODE_OPTIONS, no NODE_EXTRA_CA_CERTS. */
  getDefaultEnvironment(): Record<string, string>
}
const BIN = join(dirname(mcpPackage), 'dist', 'bin', 'foundry.js')

/** `foundry mcp` over stdio with the SDK client: memory_search round trips at 10k facts, start-up against bare node, and `foundry list` at 1k facts. */
export const mcpSuite: Suite = {
  name: 'mcp',
  about:
    '`foundry mcp` over stdio and Streamable HTTP (team mode: round trip, throughput with 1/4/16 clients, foundry-hook via the team server): memory_search round trip at 10k facts (SDK client), ' +
    'the 50 known-answer questions at 10k facts (answer rate, tokens per question, first answer of a new session, RSS), spawn+initialize vs bare node; `foundry list` at 1k facts vs bare node',
  async run(ctx) {
    await searchRoundTrip(ctx)
    await leanAnswers(ctx)
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
    ctx.report({
      suite: 'mcp',
      figure: `first memory_search of a session @${size / 1000}k (snapshot restored)`,
      value: `${ms(firstSearch)} ms`,
    })
  } finally {
    await client.close()
  }
  // Team mode on the same project: the round trip over HTTP, throughput with 1, 4 and 16 clients, the hook via the server.
  await teamMode(ctx, root, size)
}

interface ToolText {
  content: Array<{ type: string; text?: string }>
  structuredContent?: unknown
}

/**
 * The 50 known-answer questions of `bench --peers` (the real ADRs as facts, SciFact padding to 10k)
 * through `foundry mcp`: how many are answered (the answering fact's id in the result) and what an
 * answer costs, the text and the whole JSON-RPC result (o200k tokens). The same run's baseline is
 * the answer before issue 17, rebuilt in process: every hit whole and the facts again as
 * structuredContent. Then the first answer of a new session, and the server's RSS after the
 * questions and 300 writes.
 */
async function leanAnswers(ctx: BenchContext): Promise<void> {
  const size = ctx.quick ? 1000 : 10_000
  const root = join(ctx.scratch, `mcp-answers-${size}`)
  const records = peerRecords(ctx, size)
  const storage = fsStorage({ root, durable: false })
  await putRecords(storage, records)
  await storage.close?.()
  const questions = KNOWN_ANSWERS.map((k) => ({
    question: k.question,
    id: factId(records.findIndex((r) => r.adr === k.adr) + 1),
  }))
  const tokensOf = (result: ToolText, id: number) => ({
    text: countTokens(result.content.map((c) => c.text ?? '').join('\n')),
    whole: countTokens(JSON.stringify({ result, jsonrpc: '2.0', id })),
  })

  // The first session builds the index and leaves its snapshot; the figures come from later ones.
  const first = await connect(root)
  await first.callTool({ name: 'memory_search', arguments: { query: 'warm up the index' } })
  await first.close()

  // A new session's first answer, from the moment initialize is answered.
  const firstAnswers: number[] = []
  for (let i = 0; i < (ctx.quick ? 3 : 9); i++) {
    const { client } = await connectServer(root)
    const start = performance.now()
    await client.callTool({ name: 'memory_search', arguments: { query: questions[i]!.question } })
    firstAnswers.push(performance.now() - start)
    await client.close()
  }

  const { client, pid } = await connectServer(root)
  let answered = 0
  let text = 0
  let whole = 0
  try {
    for (const [i, q] of questions.entries()) {
      const result = (await client.callTool({ name: 'memory_search', arguments: { query: q.question } })) as ToolText
      const tokens = tokensOf(result, i + 10)
      text += tokens.text
      whole += tokens.whole
      if (result.content.some((c) => c.text?.includes(q.id))) answered++
    }
    const afterQuestions = memoryOf(pid)
    const extra = syntheticFacts(ctx, size + 300).slice(size)
    for (const fact of extra) await client.callTool({ name: 'memory_write', arguments: { ...fact } })
    const afterWrites = memoryOf(pid)
    ctx.report({
      suite: 'mcp',
      figure: `\`foundry mcp\` RSS @${size / 1000}k facts: after the 50 questions / after 300 writes (peak)`,
      value: `${afterQuestions.rss.toFixed(0)} / ${afterWrites.rss.toFixed(0)} MB (${afterWrites.peak.toFixed(0)} MB)`,
      target: '≤ 200 MB',
      met: Math.max(afterQuestions.rss, afterWrites.peak) <= 200,
    })
  } finally {
    await client.close()
  }

  // Before issue 17, in process on the same store: every hit whole (8), the facts again as structured content.
  const before = createKernel({
    storage: fsStorage({ root, durable: false }),
    retriever: minisearchRetriever(),
    config: { memoryRetrieval: { minRelevanceRatio: 0, wholeFacts: 25 } },
    telemetry: { record: async () => {} },
  })
  let beforeAnswered = 0
  let beforeText = 0
  let beforeWhole = 0
  for (const [i, q] of questions.entries()) {
    const { text: answer, query, hits } = await before.memory.search({ query: q.question })
    const tokens = tokensOf(
      {
        content: [{ type: 'text', text: answer }],
        structuredContent: { query, hits: hits.map(({ fact, score }) => ({ fact, score })) },
      },
      i + 10,
    )
    beforeText += tokens.text
    beforeWhole += tokens.whole
    if (answer.includes(q.id)) beforeAnswered++
  }
  await before.close()
  const n = questions.length
  ctx.report({
    suite: 'mcp',
    figure: `known-answer questions @${size / 1000}k facts (ADRs + SciFact): answered / tokens a question, text · whole JSON-RPC result`,
    value: `${answered}/${n} · ${(text / n).toFixed(0)} · ${(whole / n).toFixed(0)}`,
    baseline: `before (8 whole hits + structuredContent) ${beforeAnswered}/${n} · ${(beforeText / n).toFixed(0)} · ${(beforeWhole / n).toFixed(0)}`,
    ratio: whole / beforeWhole,
    target: `${n}/${n} at ≤ 150 tokens`,
    met: answered === n && whole / n <= 150,
  })
  const p50 = latency(firstAnswers).p50
  ctx.report({
    suite: 'mcp',
    figure: `first answer of a new session after initialize @${size / 1000}k (p50 of ${firstAnswers.length})`,
    value: `${ms(p50)} ms`,
    target: '≤ 100 ms',
    met: p50 <= 100,
  })
}

/** Records as stored facts (ids fact-0001…), put straight into storage: benchmark setup. */
async function putRecords(storage: Storage, records: PeerRecord[]): Promise<void> {
  const created = Date.parse('2026-01-01T00:00:00Z')
  for (const [i, r] of records.entries()) {
    const fact: Fact = {
      id: factId(i + 1),
      title: r.title,
      body: r.body,
      type: r.type,
      scope: 'project',
      tags: [],
      confidence: 'medium',
      source: 'conversation',
      created: new Date(created + i * 1000).toISOString(),
      status: 'active',
    }
    await storage.put('facts', fact.id, fact)
  }
}

/** A process's resident memory now and at its peak, in MB (Linux). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN)
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 }
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
  return (await connectServer(root)).client
}

/** `foundry mcp` on `root` with the SDK client, and the server's process id. */
async function connectServer(root: string): Promise<{ client: McpClient; pid: number }> {
  const client = new Client({ name: 'foundry-bench', version: '1.0.0' })
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--root', root],
    stderr: 'inherit',
  })
  await client.connect(transport)
  return { client, pid: transport.pid! }
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
