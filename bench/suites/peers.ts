import { spawnSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { countTokens } from 'gpt-tokenizer'
import type { BenchContext, Suite } from '../lib/context.js'
import { latency, ms, type Latency } from '../lib/measure.js'
import {
  KNOWN_ANSWERS,
  adrRecords,
  keywordQueries,
  locomoQuestions,
  paddingRecords,
  peerRecords,
  type PeerRecord,
} from '../lib/peers-records.js'
import {
  aiDevkit,
  foundry,
  foundryBin,
  sdk,
  serverMemory,
  type McpResult,
  type PeerClient,
  type PeerSystem,
} from '../lib/peers-systems.js'
import { peerTable, type PeerRow } from '../lib/peers-table.js'

/**
 * The published peers side by side with `foundry mcp` (issue 17): @modelcontextprotocol/server-memory,
 * @ai-devkit/memory (lexical) and Foundry on fs and on SQLite, each a server process over stdio
 * driven by the SDK's Client, the same records and questions, requests round-robin across the four.
 */
export const peersSuite: Suite = {
  name: 'peers',
  about:
    'the published MCP memory servers beside `foundry mcp` (fs, SQLite): the same ADRs + SciFact padding and questions, requests interleaved; latency, answers, tokens, RSS, concurrent writes (only with --peers or --only peers)',
  run: (ctx) => comparePeers(ctx, ctx.quick ? [1000] : [1000, 10_000]),
}

/** The concurrent writes once, then a table at each of `sizes` records. */
export async function comparePeers(ctx: BenchContext, sizes: number[]): Promise<void> {
  const { getDefaultEnvironment } = sdk()
  const env = getDefaultEnvironment()
  const bin = await foundryBin(ctx.scratch)
  // The commit of the checkout when the bin was copied: others may commit during the run.
  const measured = commit()
  const systems = [serverMemory(env), aiDevkit(env), foundry('fs', env, bin), foundry('sqlite', env, bin)]
  ctx.log(`  peers: ${systems.map((s) => s.version).join(', ')}`)
  const concurrency = await concurrentWrites(ctx, systems)
  for (const size of sizes) {
    const rows = [...(await atSize(ctx, systems, size)), ...concurrency]
    const table = peerTable(systems, rows)
    console.log(
      `\nPeers side by side @${size / 1000}k records (${new Date().toISOString().slice(0, 16)}Z, Node ${process.version}, bin copied at ${measured}; ${systems
        .slice(0, 3)
        .map((s) => s.version)
        .join(', ')})\n\n${table}\n`,
    )
    for (const row of rows) {
      if (row.size === false && size !== sizes[0]) continue
      const cell = (name: string) => row.cells[name]?.text ?? 'n/a'
      ctx.report({
        suite: 'peers',
        figure: `${row.label}${row.size === false ? '' : ` @${size / 1000}k`}`,
        value: `fs ${cell('Foundry fs')} · SQLite ${cell('Foundry sqlite')}`,
        baseline: `ai-devkit ${cell('ai-devkit')} · server-memory ${cell('server-memory')}`,
      })
    }
  }
}

/** The checkout's commit, and whether its working tree differs (the bins are built from the working tree). */
function commit(): string {
  const run = (args: string[]) => spawnSync('git', args, { encoding: 'utf8' }).stdout?.trim() ?? ''
  const head = run(['rev-parse', '--short', 'HEAD'])
  return head
    ? `commit ${head}${run(['status', '--porcelain', '--untracked-files=no']) ? ' + uncommitted changes' : ''}`
    : 'no git commit'
}

const SESSION = { name: 'foundry-bench-peers', version: '1.0.0' }

interface Session {
  client: PeerClient
  pid: number
  /** The last of the server's stderr, for error messages. */
  stderr: () => string
}

async function open(system: PeerSystem, dir: string): Promise<Session> {
  const { Client, StdioClientTransport } = sdk()
  // The SDK client drops the connection on a message over 10 MiB (its default): server-memory's read_graph at 10k records is larger, so the bench reads up to 256 MiB and reports the size.
  const transport = new StdioClientTransport({
    ...system.launch(dir),
    stderr: 'pipe',
    maxBufferSize: 256 * 1024 * 1024,
  })
  let tail = ''
  ;(transport as unknown as { stderr: NodeJS.ReadableStream | null }).stderr?.on(
    'data',
    (d: Buffer) => (tail = (tail + d.toString()).slice(-2000)),
  )
  const client = new Client(SESSION)
  try {
    await client.connect(transport)
  } catch (error) {
    throw new Error(`${system.name} did not start: ${(error as Error).message} ${tail}`)
  }
  return { client, pid: transport.pid!, stderr: () => tail }
}

/** Each system in turn, the starting one rotating with `round`, so a busy moment of the machine weighs on all. */
function rotated<T>(items: T[], round: number): T[] {
  const k = round % items.length
  return [...items.slice(k), ...items.slice(0, k)]
}

const time = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const start = performance.now()
  const value = await fn()
  return [value, performance.now() - start]
}

const textOf = (result: McpResult) => (result.content ?? result.contents ?? []).map((c) => c.text ?? '').join('\n')

function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN)
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 }
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN)
const int = (v: number) => Math.round(v).toLocaleString('en-US')

/** Everything measured on stores of `size` records. */
async function atSize(ctx: BenchContext, systems: PeerSystem[], size: number): Promise<PeerRow[]> {
  const label = `${size / 1000}k`
  const records = peerRecords(ctx, size)
  const dirOf = (s: PeerSystem) => join(ctx.scratch, `peers-${label}`, s.name.replace(/\s+/g, '-'))
  const rows: PeerRow[] = []
  const cells = (fn: (s: PeerSystem) => { text: string; value?: number } | undefined) =>
    Object.fromEntries(systems.map((s) => [s.name, fn(s)]))

  // Seeding: one system at a time, each the fastest way it offers; not counted in write latency.
  const seeding = new Map<string, number>()
  for (const system of systems) {
    system.prepare(dirOf(system))
    const session = await open(system, dirOf(system))
    const [, elapsed] = await time(() => system.seed(session.client, records))
    await session.client.close()
    seeding.set(system.name, elapsed)
    ctx.log(
      `  peers @${label}: ${system.name} seeded ${records.length} records in ${(elapsed / 1000).toFixed(1)} s (${system.seedHow})`,
    )
  }

  // One session each, all four open at once; every request goes to each server in turn.
  const sessions = new Map<string, Session>()
  for (const system of systems) sessions.set(system.name, await open(system, dirOf(system)))
  const n = ctx.quick ? 50 : 200
  const questions = [...KNOWN_ANSWERS.map((k) => k.question), ...locomoQuestions(ctx, n)]
  const keywords = keywordQueries(records, n)
  const writes = paddingRecords(ctx, ctx.quick ? 100 : 300, 20_000)
  const samples = new Map(
    systems.map((s) => [
      s.name,
      { question: [] as number[], keyword: [] as number[], write: [] as number[], keywordTokens: [] as number[] },
    ]),
  )
  const answers = new Map(
    systems.map((s) => [
      s.name,
      {
        answered: 0,
        named: 0,
        ranks: [] as number[],
        text: [] as number[],
        whole: [] as number[],
        missed: [] as string[],
      },
    ]),
  )
  const adrTitle = new Map(adrRecords(ctx).map((r) => [r.adr!, r.title]))
  /** A call on the system's open session; a failure names the system and the end of its stderr. */
  const via = <T>(system: PeerSystem, fn: (client: PeerClient) => Promise<T>): Promise<T> => {
    const session = sessions.get(system.name)!
    return fn(session.client).catch((error: Error) => {
      throw new Error(
        `${system.name}: ${error.message}${session.stderr() ? `; its stderr ends: ${session.stderr().slice(-600)}` : ''}`,
      )
    })
  }
  try {
    // A warm-up search each: the first answer of a session is measured on its own, below.
    for (const system of systems) await via(system, (c) => system.search(c, 'warm up the index'))
    for (const [i, question] of questions.entries()) {
      for (const system of rotated(systems, i)) {
        const [result, elapsed] = await time(() => via(system, (c) => system.search(c, question)))
        samples.get(system.name)!.question.push(elapsed)
        if (i >= KNOWN_ANSWERS.length) continue
        const target = adrTitle.get(KNOWN_ANSWERS[i]!.adr)!
        const { titles, whole } = system.titles(result)
        const rank = titles.indexOf(target)
        const a = answers.get(system.name)!
        if (rank < 0 || rank >= whole) {
          a.missed.push(question)
          if (rank >= whole) a.named++
          continue
        }
        a.answered++
        a.ranks.push(rank + 1)
        a.text.push(countTokens(textOf(result)))
        a.whole.push(countTokens(JSON.stringify(result)))
      }
    }
    for (const [name, a] of answers) {
      const missed =
        a.missed.length > 12
          ? `${a.missed.length} questions`
          : a.missed.map((q) => `"${q}"`).join(', ') || 'no question'
      ctx.log(`  peers @${label}: ${name} did not find the record for ${missed}`)
    }
    for (const [i, keyword] of keywords.entries()) {
      for (const system of rotated(systems, i)) {
        const [result, elapsed] = await time(() => via(system, (c) => system.search(c, keyword)))
        const s = samples.get(system.name)!
        s.keyword.push(elapsed)
        s.keywordTokens.push(countTokens(JSON.stringify(result)))
      }
    }
    for (const [i, record] of writes.entries()) {
      for (const system of rotated(systems, i)) {
        const [refused, elapsed] = await time(() => via(system, (c) => system.write(c, record)))
        if (refused) throw new Error(`${system.name} refused the write of "${record.title}": ${refused}`)
        samples.get(system.name)!.write.push(elapsed)
      }
    }
    // Loading all memory eagerly, as a session start that reads it all would.
    const eager = new Map<string, { text: number; whole: number; ms: number; bytes: number } | undefined>()
    for (const system of systems) {
      const [result, elapsed] = await time(() => via(system, (c) => system.readAll(c)))
      const whole = result && JSON.stringify(result)
      eager.set(
        system.name,
        result && {
          text: countTokens(textOf(result)),
          whole: countTokens(whole!),
          ms: elapsed,
          bytes: Buffer.byteLength(whole!),
        },
      )
    }
    const rss = new Map(systems.map((s) => [s.name, memory(sessions.get(s.name)!.pid)]))

    // New sessions on the same stores: spawn + initialize, then the first answer.
    const coldRounds = ctx.quick ? 3 : 5
    const spawn = new Map(systems.map((s) => [s.name, [] as number[]]))
    const first = new Map(systems.map((s) => [s.name, [] as number[]]))
    const total = new Map(systems.map((s) => [s.name, [] as number[]]))
    for (let round = 0; round < coldRounds; round++) {
      for (const system of rotated(systems, round)) {
        const [session, started] = await time(() => open(system, dirOf(system)))
        const question = KNOWN_ANSWERS[(round * 7) % KNOWN_ANSWERS.length]!.question
        const [, answered] = await time(() => system.search(session.client, question))
        await session.client.close()
        spawn.get(system.name)!.push(started)
        first.get(system.name)!.push(answered)
        total.get(system.name)!.push(started + answered)
      }
    }

    const lat = (name: string, kind: 'question' | 'keyword' | 'write') => latency(samples.get(name)![kind])
    const msCell = (l: Latency, q: 'p50' | 'p99') => ({ text: `${ms(l[q])} ms`, value: l[q] })
    rows.push({
      label: 'records',
      better: 'none',
      cells: cells(() => ({ text: int(records.length), value: records.length })),
      note: 'ADRs + SciFact padding',
    })
    rows.push({
      label: 'seeding (not in write latency)',
      cells: cells((s) => ({ text: `${(seeding.get(s.name)! / 1000).toFixed(1)} s`, value: seeding.get(s.name)! })),
    })
    rows.push({
      label: 'spawn + initialize p50',
      cells: cells((s) => msCell(latency(spawn.get(s.name)!), 'p50')),
      note: `${coldRounds} new sessions each`,
    })
    rows.push({
      label: 'new session: first answer after initialize p50',
      cells: cells((s) => msCell(latency(first.get(s.name)!), 'p50')),
    })
    rows.push({
      label: 'new session: spawn to first answer p50',
      cells: cells((s) => msCell(latency(total.get(s.name)!), 'p50')),
      note: 'foundry mcp answers initialize before it loads the SDK server and opens the project, so part of its start-up moves to the first answer: this row is the sum',
    })
    for (const q of ['p50', 'p99'] as const)
      rows.push({
        label: `write ${q}`,
        cells: cells((s) => msCell(lat(s.name, 'write'), q)),
        note: `${writes.length} writes each`,
      })
    for (const q of ['p50', 'p99'] as const)
      rows.push({
        label: `keyword search ${q}`,
        cells: cells((s) => msCell(lat(s.name, 'keyword'), q)),
        note: `${keywords.length} two-word queries from record titles`,
      })
    for (const q of ['p50', 'p99'] as const)
      rows.push({
        label: `question search ${q}`,
        cells: cells((s) => msCell(lat(s.name, 'question'), q)),
        note: `${KNOWN_ANSWERS.length} ADR questions + ${questions.length - KNOWN_ANSWERS.length} LoCoMo questions`,
      })
    rows.push({
      label: `answered (of ${KNOWN_ANSWERS.length} ADR questions)`,
      better: 'higher',
      cells: cells((s) => {
        const a = answers.get(s.name)!
        const top = a.ranks.filter((r) => r === 1).length
        const named = a.named ? `; ${a.named} more named by title only, as weaker matches` : ''
        return {
          text: `${a.answered} (${top} at rank 1${a.answered ? `, mean rank ${mean(a.ranks).toFixed(2)}` : ''}${named})`,
          value: a.answered,
        }
      }),
      note: 'answered: the ADR record, its content included, is in the result (rank: its place there). Foundry lists the hits below its relevance floor as "weaker matches", id and title only: counted apart',
    })
    rows.push({
      label: 'tokens per answered question: text',
      cells: cells((s) => {
        const a = answers.get(s.name)!
        return a.answered ? { text: int(mean(a.text)), value: mean(a.text) } : undefined
      }),
      note: 'gpt-tokenizer (o200k)',
    })
    rows.push({
      label: 'tokens per answered question: whole JSON-RPC result',
      cells: cells((s) => {
        const a = answers.get(s.name)!
        return a.answered ? { text: int(mean(a.whole)), value: mean(a.whole) } : undefined
      }),
    })
    rows.push({
      label: 'tokens per keyword search: whole result (mean)',
      cells: cells((s) => {
        const t = mean(samples.get(s.name)!.keywordTokens)
        return { text: int(t), value: t }
      }),
    })
    rows.push({
      label: 'load all memory eagerly: tokens (text / whole)',
      cells: cells((s) => {
        const e = eager.get(s.name)
        const size =
          e &&
          (e.bytes >= 1024 * 1024 ? `${(e.bytes / 1024 / 1024).toFixed(1)} MiB` : `${(e.bytes / 1024).toFixed(0)} KiB`)
        return (
          e && {
            text: `${int(e.text)} / ${int(e.whole)} (${size}${e.bytes > 10 * 1024 * 1024 ? ', over the SDK client’s 10 MiB default: it drops the connection' : ''})`,
            value: e.whole,
          }
        )
      }),
      note: systems.map((s) => `${s.name}: ${s.readAllHow}`).join('; '),
    })
    rows.push({
      label: 'RSS after the session (VmRSS)',
      cells: cells((s) => ({ text: `${rss.get(s.name)!.rss.toFixed(0)} MB`, value: rss.get(s.name)!.rss })),
    })
    rows.push({
      label: 'RSS peak (VmHWM)',
      cells: cells((s) => ({ text: `${rss.get(s.name)!.hwm.toFixed(0)} MB`, value: rss.get(s.name)!.hwm })),
    })
  } finally {
    await Promise.all([...sessions.values()].map((s) => s.client.close().catch(() => undefined)))
    rmSync(join(ctx.scratch, `peers-${label}`), { recursive: true, force: true })
  }
  return rows
}

/**
 * `clients` server processes of each system on one fresh store, each writing `each` records back
 * to back, all at once (as several agents on one project run them): records kept against acknowledged.
 */
async function concurrentWrites(ctx: BenchContext, systems: PeerSystem[]): Promise<PeerRow[]> {
  const rows: PeerRow[] = []
  for (const [clients, each] of [
    [4, 50],
    [8, 100],
  ] as const) {
    const cells: PeerRow['cells'] = {}
    for (const system of systems) {
      const dir = join(ctx.scratch, `peers-concurrent-${clients}x${each}`, system.name.replace(/\s+/g, '-'))
      system.prepare(dir)
      // The store exists and has been used once before the writers start, as a project's store has
      // (on a new store, ai-devkit's processes race its schema migration: see BENCHMARKS.md).
      const first = await open(system, dir)
      const [opening] = paddingRecords(ctx, 1, 29_999)
      const refusedFirst = await system.write(first.client, opening!)
      await first.client.close()
      if (refusedFirst) throw new Error(`${system.name} refused the first write on a new store: ${refusedFirst}`)
      const records = paddingRecords(ctx, clients * each, 30_000)
      const sessions = await Promise.all(Array.from({ length: clients }, () => open(system, dir)))
      const acknowledged: string[] = []
      let refused = 0
      const reasons = new Map<string, number>()
      const [, elapsed] = await time(() =>
        Promise.all(
          sessions.map(async (session, k) => {
            for (let m = 0; m < each; m++) {
              const record: PeerRecord = records[k * each + m]!
              let reason: string | undefined
              try {
                reason = await system.write(session.client, record)
              } catch (error) {
                reason = (error as Error).message.slice(0, 160)
              }
              if (reason === undefined) acknowledged.push(record.title)
              else refused++, reasons.set(reason, (reasons.get(reason) ?? 0) + 1)
            }
          }),
        ),
      )
      await Promise.all(sessions.map((s) => s.client.close()))
      const kept = system.kept(dir, acknowledged)
      rmSync(dir, { recursive: true, force: true })
      const lost = acknowledged.length - kept
      cells[system.name] = {
        text: `${kept}/${acknowledged.length}${refused ? `, ${refused} refused` : ''}${lost ? `, ${lost} lost` : ''} (${(elapsed / 1000).toFixed(1)} s)`,
        value: kept,
      }
      ctx.log(
        `  peers: ${system.name} ${clients}×${each} concurrent writes: kept ${kept} of ${acknowledged.length} acknowledged, ${refused} refused${reasons.size ? `: ${[...reasons].map(([r, k]) => `${k}× ${r}`).join('; ')}` : ''}`,
      )
    }
    rows.push({
      label: `${clients} × ${each} concurrent writes: kept / acknowledged`,
      cells,
      better: 'higher',
      size: false,
      note: `${clients} server processes on one new store`,
    })
  }
  return rows
}
