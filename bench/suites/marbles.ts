import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { countTokens } from 'gpt-tokenizer'
import { join } from 'node:path'
import { createKernel } from '@foundry/kernel'
import { initProject, openProject } from '@foundry/project'
import type { BenchContext, Suite } from '../lib/context.js'
import { latency, ms } from '../lib/measure.js'
import {
  connectMarblesMcp,
  getDefaultEnvironment,
  MARBLES_BIN,
  MARBLES_DIR,
  MARBLES_ENGINE,
  MARBLES_LIB,
  type Marbles,
  type McpClient,
} from '../lib/marbles.js'

/** Dispatch→running latency, journal throughput written and followed by another process, watcher lag, idle watcher CPU; fs and SQLite. */
export const marblesSuite: Suite = {
  name: 'marbles',
  about:
    'Marbles: dispatch→running p50/p99, journal lines/s written and followed from another process, watcher lag, idle watcher CPU over 10 s (fs and sqlite); `marbles mcp` spawn+initialize vs bare node, dispatch_agent→running with a fake Claude Code, get_run tokens for a 20k-token answer',
  async run(ctx) {
    const m = { ...(await import(MARBLES_LIB)), ...(await import(MARBLES_ENGINE)) } as Marbles
    for (const kind of ['fs', 'sqlite'] as const) await onStorage(ctx, m, kind)
    await mcpFigures(ctx, m)
  },
}

/** The fake CLIs of the marbles tests (real stream formats, no network), and a workspace that declares an agent. */
const FAKE_BIN = join(MARBLES_DIR, 'test', 'fixtures', 'bin')
const AGENTS = join(MARBLES_DIR, 'test', 'fixtures', 'agents')

function connectMarbles(root: string): Promise<McpClient> {
  return connectMarblesMcp(['--root', root, '--source', AGENTS, 'mcp'], { PATH: `${FAKE_BIN}:${process.env.PATH}` })
}

/**
 * `marbles mcp`: spawn + initialize against bare node (the server opens the workspace, the project and
 * its engine before it answers); dispatch_agent → running with the fake Claude Code (from the call to
 * the journal's `running` stamp); what get_run returns for an answer of 20k tokens (firewalled) against the answer.
 */
async function mcpFigures(ctx: BenchContext, m: Marbles): Promise<void> {
  const root = join(ctx.scratch, 'marbles-mcp')
  await initProject({ root, storage: 'fs' })
  const empty = join(ctx.scratch, 'empty.mjs')
  writeFileSync(empty, '')
  const bare: number[] = []
  const server: number[] = []
  for (let i = 0; i < (ctx.quick ? 5 : 15); i++) {
    let t = performance.now()
    const child = spawn(process.execPath, [empty], { stdio: 'ignore', env: getDefaultEnvironment() })
    await new Promise((resolve) => child.once('exit', resolve))
    bare.push(performance.now() - t)
    t = performance.now()
    const client = await connectMarbles(root)
    server.push(performance.now() - t)
    await client.close()
  }
  const b = latency(bare).p50
  const s = latency(server).p50
  ctx.report({
    suite: 'marbles',
    figure: '`marbles mcp` spawn + initialize p50 (workspace, project and engine opened first)',
    value: `${ms(s)} ms`,
    baseline: `bare node ${ms(b)} ms`,
    ratio: s / b,
  })

  const client = await connectMarbles(root)
  const project = await openProject({ root })
  try {
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args })
      if (result.isError) throw new Error(result.content[0]?.text)
      return result
    }
    const settle = async (runId: string) => {
      for (;;) {
        const r = await call('get_run', { runId })
        if (['completed', 'failed', 'cancelled'].includes(r.structuredContent!.status)) return r
        await sleep(10)
      }
    }
    const samples: number[] = []
    for (let i = -2; i < (ctx.quick ? 10 : 40); i++) {
      const t = Date.now()
      const ack = await call('dispatch_agent', { prompt: 'Say done.' })
      const runId = ack.structuredContent!.runId as string
      await settle(runId)
      const running = (await m.readJournal(project.storage, runId)).find(
        (r) => r.type === 'status' && r.status === 'running',
      )
      if (i >= 0 && running) samples.push(running.at - t)
    }
    const d = latency(samples)
    ctx.report({
      suite: 'marbles',
      figure: 'dispatch_agent → running p50 / p99 (fake Claude Code, fs)',
      value: `${ms(d.p50)} / ${ms(d.p99)} ms`,
    })

    const answerChars = 80_000 // 20 000 tokens at the kernel's 4 characters a token
    const ack = await call('dispatch_agent', { prompt: `Explain everything. [answer-chars:${answerChars}]` })
    const got = await settle(ack.structuredContent!.runId as string)
    const returned = got.content[0]!.text
    const artifact = JSON.parse(readFileSync(join(root, got.structuredContent!.artifact as string), 'utf8')) as {
      data?: { text?: string }
      text?: string
    }
    const raw = artifact.data?.text ?? artifact.text ?? ''
    const rawTokens = countTokens(raw)
    const returnedTokens = countTokens(returned)
    ctx.report({
      suite: 'marbles',
      figure: 'get_run tokens for an agent answer of 20k tokens (firewalled: summary + handoff.v1 path)',
      value: `${returnedTokens} tokens (${returned.length} chars)`,
      baseline: `the raw answer ${rawTokens} tokens (${raw.length} chars, ~${Math.ceil(raw.length / 4)} by the kernel's estimate)`,
      ratio: returnedTokens / rawTokens,
    })
  } finally {
    await client.close()
    await project.close()
  }
}

async function onStorage(ctx: BenchContext, m: Marbles, kind: 'fs' | 'sqlite'): Promise<void> {
  const root = join(ctx.scratch, `marbles-${kind}`)
  await initProject({ root, storage: kind })
  const project = await openProject({ root })
  // Telemetry that tells when a run is published `running` (after its journal record is durable).
  const waiting = new Map<string, () => void>()
  const completed = new Map<string, () => void>()
  const kernel = createKernel({
    storage: project.storage,
    telemetry: {
      record: (e) => {
        const runId = String((e.data as { runId?: string })?.runId ?? '')
        if (e.kind === 'marbles.running') waiting.get(runId)?.()
        if (e.kind === 'marbles.complete') completed.get(runId)?.()
      },
    },
  })
  const definitions = m.defineWorkspace(
    m.workflow({ name: 'noop', run: () => 1 }),
    m.workflow({
      name: 'burst',
      run: async (c, input: { lines: number }) => {
        for (let i = 0; i < input.lines; i++) c.log.info(`line ${i}`)
        return input.lines
      },
    }),
    m.workflow({
      name: 'paced',
      run: async (c, input: { lines: number; everyMs: number }) => {
        for (let i = 0; i < input.lines; i++) {
          c.log.info(`line ${i}`)
          await new Promise((r) => setTimeout(r, input.everyMs))
        }
      },
    }),
    m.workflow({ name: 'idle', run: (_c, input: { ms: number }) => new Promise((r) => setTimeout(r, input.ms)) }),
  )
  const engine = await m.openEngine({ storage: project.storage, kernel, definitions })
  const label = `${kind} (${kind === 'fs' ? 'durable appends, fdatasync' : 'WAL'})`
  try {
    // 1. Dispatch → running: dispatch writes the queued record durably and returns; the engine starts the run.
    const samples: number[] = []
    const n = ctx.quick ? 30 : 200
    for (let i = -5; i < n; i++) {
      const t = performance.now()
      let runId = ''
      const running = new Promise<void>((resolve) => {
        const done = () => resolve()
        waiting.set('pending', done)
      })
      const dispatched = await engine.dispatch('noop')
      runId = dispatched.runId
      waiting.set(runId, waiting.get('pending')!)
      await running
      if (i >= 0) samples.push(performance.now() - t)
      waiting.delete(runId)
      await engine.settled(runId)
    }
    const d = latency(samples)
    ctx.report({
      suite: 'marbles',
      figure: `dispatch → running p50 / p99, ${label}`,
      value: `${ms(d.p50)} / ${ms(d.p99)} ms`,
      target: '≤ 5 ms p50',
      met: d.p50 <= 5,
    })

    // 2. Journal throughput: a burst of log lines written, and followed by a watcher in another process.
    const lines = ctx.quick ? 2000 : 20_000
    const watcher = await startWatcher(root)
    const t0 = performance.now()
    const done = new Promise<void>((resolve) => completed.set('next', resolve))
    const burst = await engine.dispatch('burst', { lines })
    completed.set(burst.runId, completed.get('next')!)
    watcher.follow(burst.runId)
    await done
    const written = performance.now() - t0
    const followed = await watcher.result()
    ctx.report({
      suite: 'marbles',
      figure: `journal lines/s written (${lines} lines, batched appends), ${label}`,
      value: `${Math.round(lines / (written / 1000))}`,
    })
    ctx.report({
      suite: 'marbles',
      figure: `journal lines/s followed by a watcher in another process, ${label}`,
      value: `${Math.round(followed.logs / (followed.spanMs / 1000))}`,
      baseline: `${followed.logs} of ${lines} lines seen, in order: ${followed.ordered}`,
    })

    // 3. Watcher lag: a line every 20 ms, the time from its journal stamp to the watcher reading it.
    const paced = await startWatcher(root)
    const run = await engine.dispatch('paced', { lines: ctx.quick ? 50 : 250, everyMs: 20 })
    paced.follow(run.runId)
    const lag = await paced.result()
    const l = latency(lag.lags)
    ctx.report({
      suite: 'marbles',
      figure: `watcher lag p50 / p99 (a line every 20 ms), ${label}`,
      value: `${ms(l.p50)} / ${ms(l.p99)} ms`,
      target: '≤ 50 ms p50',
      met: l.p50 <= 50,
    })

    // 4. Idle CPU: `marbles watch` on a run that journals nothing for the whole window.
    const windowMs = ctx.quick ? 3000 : 10_000
    const idle = await engine.dispatch('idle', { ms: windowMs + 3000 })
    const watch = spawn(process.execPath, [MARBLES_BIN, '--root', root, 'watch', idle.runId], { stdio: 'ignore' })
    await sleep(1500) // started, replayed, idle
    const before = cpuTicks(watch)
    await sleep(windowMs)
    const used = cpuTicks(watch) - before
    const cpu = (used * 10) / windowMs // ticks of 10 ms → % of one core
    ctx.report({
      suite: 'marbles',
      figure: `idle \`marbles watch\` CPU over ${windowMs / 1000} s, ${label}`,
      value: `${cpu.toFixed(2)}% of a core`,
      target: '< 1%',
      met: cpu < 1,
    })
    watch.kill('SIGINT')
    await engine.settled(idle.runId)
  } finally {
    await engine.close()
    await project.close()
  }
}

/** A watcher in its own process: it follows the run id sent on its stdin, stamping each record as it arrives. */
const WATCHER = `
const { followJournal } = await import(process.env.MARBLES_ENGINE)
const { openProject } = await import(process.env.PROJECT_LIB)
const project = await openProject({ root: process.argv[1] })
process.stdout.write('ready\\n')
let id = ''
for await (const chunk of process.stdin) { id += chunk; if (id.includes('\\n')) break }
const lags = []
let logs = 0, first = 0, last = 0, expected = 0, ordered = true
for await (const record of followJournal(project.storage, id.trim())) {
  const now = Date.now()
  if (record.seq !== expected++) ordered = false
  if (record.type === 'log') { logs++; first ||= now; last = now; lags.push(now - record.at) }
  if (record.type === 'status' && ['complete', 'failed', 'cancelled'].includes(record.status)) break
}
process.stdout.write(JSON.stringify({ logs, spanMs: Math.max(1, last - first), lags, ordered }) + '\\n')
await project.close()
process.exit(0)
`

async function startWatcher(root: string) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', WATCHER, root], {
    env: { ...process.env, MARBLES_ENGINE, PROJECT_LIB: import.meta.resolve('@foundry/project') },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  const exited = new Promise((resolve) => child.on('exit', resolve)) // it may end before anyone asks
  await until(async () => out.startsWith('ready'))
  return {
    follow: (runId: string) => child.stdin!.end(`${runId}\n`),
    result: async (): Promise<{ logs: number; spanMs: number; lags: number[]; ordered: boolean }> => {
      await exited
      return JSON.parse(out.split('\n')[1]!)
    },
  }
}

/** User + system CPU ticks (10 ms each) of a child, from /proc. */
function cpuTicks(child: ChildProcess): number {
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return Number(fields[11]) + Number(fields[12])
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await sleep(1)
}
