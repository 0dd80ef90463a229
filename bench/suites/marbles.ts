import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createKernel } from '@foundry/kernel'
import { initProject, openProject } from '@foundry/project'
import type { BenchContext, Suite } from '../lib/context.js'
import { latency, ms } from '../lib/measure.js'

// The built @foundry/marbles (bench builds every package first); imported by path, so bench's manifest is unchanged.
const MARBLES_DIR = new URL('../../packages/marbles/', import.meta.url).pathname
const MARBLES_LIB = pathToFileURL(join(MARBLES_DIR, 'dist', 'index.js')).href
const MARBLES_BIN = join(MARBLES_DIR, 'dist', 'bin', 'marbles.js')
type Marbles = typeof import('../../packages/marbles/src/index.js')

/** Dispatch→running latency, journal throughput written and followed by another process, watcher lag, idle watcher CPU; fs and SQLite. */
export const marblesSuite: Suite = {
  name: 'marbles',
  about: 'Marbles: dispatch→running p50/p99, journal lines/s written and followed from another process, watcher lag, idle watcher CPU over 10 s (fs and sqlite)',
  async run(ctx) {
    const m = (await import(MARBLES_LIB)) as Marbles
    for (const kind of ['fs', 'sqlite'] as const) await onStorage(ctx, m, kind)
  },
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
    m.workflow({ name: 'idle', run: (c, input: { ms: number }) => new Promise((r) => setTimeout(r, input.ms)) }),
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
    ctx.report({ suite: 'marbles', figure: `dispatch → running p50 / p99, ${label}`, value: `${ms(d.p50)} / ${ms(d.p99)} ms`, target: '≤ 5 ms p50', met: d.p50 <= 5 })

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
    ctx.report({ suite: 'marbles', figure: `journal lines/s written (${lines} lines, batched appends), ${label}`, value: `${Math.round(lines / (written / 1000))}` })
    ctx.report({ suite: 'marbles', figure: `journal lines/s followed by a watcher in another process, ${label}`, value: `${Math.round(followed.logs / (followed.spanMs / 1000))}`, baseline: `${followed.logs} of ${lines} lines seen, in order: ${followed.ordered}` })

    // 3. Watcher lag: a line every 20 ms, the time from its journal stamp to the watcher reading it.
    const paced = await startWatcher(root)
    const run = await engine.dispatch('paced', { lines: ctx.quick ? 50 : 250, everyMs: 20 })
    paced.follow(run.runId)
    const lag = await paced.result()
    const l = latency(lag.lags)
    ctx.report({ suite: 'marbles', figure: `watcher lag p50 / p99 (a line every 20 ms), ${label}`, value: `${ms(l.p50)} / ${ms(l.p99)} ms`, target: '≤ 50 ms p50', met: l.p50 <= 50 })

    // 4. Idle CPU: `marbles watch` on a run that journals nothing for the whole window.
    const windowMs = ctx.quick ? 3000 : 10_000
    const idle = await engine.dispatch('idle', { ms: windowMs + 3000 })
    const watch = spawn(process.execPath, [MARBLES_BIN, '--root', root, 'watch', idle.runId], { stdio: 'ignore' })
    await sleep(1500) // started, replayed, idle
    const before = cpuTicks(watch)
    await sleep(windowMs)
    const used = cpuTicks(watch) - before
    const cpu = (used * 10) / windowMs // ticks of 10 ms → % of one core
    ctx.report({ suite: 'marbles', figure: `idle \`marbles watch\` CPU over ${windowMs / 1000} s, ${label}`, value: `${cpu.toFixed(2)}% of a core`, target: '< 1%', met: cpu < 1 })
    watch.kill('SIGINT')
    await engine.settled(idle.runId)
  } finally {
    await engine.close()
    await project.close()
  }
}

/** A watcher in its own process: it follows the run id sent on its stdin, stamping each record as it arrives. */
const WATCHER = `
const { followJournal } = await import(process.env.MARBLES_LIB)
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
    env: { ...process.env, MARBLES_LIB, PROJECT_LIB: import.meta.resolve('@foundry/project') },
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

