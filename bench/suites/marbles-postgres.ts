import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createDatabase, startTestDatabase } from '@foundry/adapter-postgres/testing'
import { createKernel } from '@foundry/kernel'
import { initProject, openProject } from '@foundry/project'
import type { BenchContext, Suite } from '../lib/context.js'
import { latency, ms } from '../lib/measure.js'
import {
  connectMarblesMcp,
  MARBLES_BIN,
  MARBLES_DIR,
  MARBLES_ENGINE,
  MARBLES_LIB,
  type Marbles,
  type McpClient,
} from '../lib/marbles.js'

/** The Postgres tests' workspace: `where` journals two steps (its pid, then a wait of `ms`). */
const WORKSPACE = join(MARBLES_DIR, 'test', 'fixtures', 'postgres')

/**
 * Dispatch → running across processes on PostgreSQL: this process dispatches through pg-boss, a
 * `marbles worker` process executes; the latency runs from the dispatch call to the journal's
 * `running` stamp (one clock: same machine). Beside it, in the same run, the same-process figure on
 * the folder layout (marbles.ts's first figure): the engine that dispatches also executes.
 */
export const marblesPostgresSuite: Suite = {
  name: 'marbles-postgres',
  about:
    'Marbles on PostgreSQL: dispatch → running p50/p99 from a dispatching process to a `marbles worker` through pg-boss (LISTEN/NOTIFY wake-up), beside same-process dispatch on fs in the same run',
  async run(ctx) {
    const m = { ...(await import(MARBLES_LIB)), ...(await import(MARBLES_ENGINE)) } as Marbles
    const n = ctx.quick ? 20 : 100
    const fs = await sameProcessFs(ctx, m, n)
    const pg = await acrossProcesses(ctx, m, n)
    ctx.report({
      suite: 'marbles-postgres',
      figure: `dispatch → running p50 / p99, same process, fs (baseline, ${n} runs)`,
      value: `${ms(fs.p50)} / ${ms(fs.p99)} ms`,
    })
    ctx.report({
      suite: 'marbles-postgres',
      figure: `dispatch → running p50 / p99, dispatcher → \`marbles worker\` process through pg-boss on PostgreSQL (${n} runs)`,
      value: `${ms(pg.p50)} / ${ms(pg.p99)} ms`,
      baseline: `same process on fs ${ms(fs.p50)} ms p50`,
      ratio: pg.p50 / fs.p50,
    })
    ctx.report({
      suite: 'marbles-postgres',
      figure:
        '… of which `queued` journaled → `running` journaled by the worker (job insert + NOTIFY, fetch, start in the exclusive section)',
      value: `${ms(pg.handoff.p50)} / ${ms(pg.handoff.p99)} ms`,
    })
    ctx.report({
      suite: 'marbles-postgres',
      figure: `dispatch → running p50 / p99, \`dispatch_workflow\` on a \`marbles mcp --no-work\` child → \`marbles worker\` process through pg-boss (${n} runs)`,
      value: `${ms(pg.mcp.p50)} / ${ms(pg.mcp.p99)} ms`,
      baseline: `this process's dispatch ${ms(pg.p50)} ms p50`,
      ratio: pg.mcp.p50 / pg.p50,
    })
  },
}

async function sameProcessFs(ctx: BenchContext, m: Marbles, n: number) {
  const root = join(ctx.scratch, 'marbles-pg-baseline')
  await initProject({ root, storage: 'fs' })
  const project = await openProject({ root })
  const running = new Map<string, () => void>()
  const kernel = createKernel({
    storage: project.storage,
    telemetry: { record: (e) => void (e.kind === 'marbles.running' && running.get('next')?.()) },
  })
  const engine = await m.openEngine({
    storage: project.storage,
    kernel,
    definitions: m.defineWorkspace(m.workflow({ name: 'noop', run: () => 1 })),
  })
  const samples: number[] = []
  try {
    for (let i = -3; i < n; i++) {
      const started = new Promise<void>((resolve) => running.set('next', resolve))
      const t = performance.now()
      const { runId } = await engine.dispatch('noop')
      await started
      if (i >= 0) samples.push(performance.now() - t)
      await engine.settled(runId)
    }
  } finally {
    await engine.close()
    await project.close()
  }
  return latency(samples)
}

async function acrossProcesses(ctx: BenchContext, m: Marbles, n: number) {
  const server = await startTestDatabase()
  const root = join(ctx.scratch, 'marbles-pg')
  mkdirSync(join(root, '.foundry'), { recursive: true })
  writeFileSync(
    join(root, '.foundry', 'config.json'),
    JSON.stringify({ storage: { kind: 'postgres', url: await createDatabase(server.url) } }),
  )
  const worker = spawn(
    process.execPath,
    [MARBLES_BIN, '--root', root, '--source', WORKSPACE, 'worker', '--workflow', 'where'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  worker.stderr!.on('data', (d) => (stderr += d))
  const exited = new Promise((resolve) => worker.on('exit', resolve))
  const state = await m.openState({ root, needKernel: true })
  try {
    for (let waited = 0; !stderr.includes('marbles worker:'); waited += 50) {
      if (waited > 30_000 || worker.exitCode !== null) throw new Error(`marbles worker did not start: ${stderr.trim()}`)
      await new Promise((r) => setTimeout(r, 50))
    }
    const queue = await state.queue()
    if (!queue) throw new Error('the project on PostgreSQL has no job queue')
    const { definitions } = await m.loadWorkspace({ root, source: WORKSPACE })
    const engine = await m.openEngine({ storage: state.storage, kernel: state.kernel, definitions, queue })
    const samples: number[] = []
    const handoff: number[] = []
    try {
      for (let i = -3; i < n; i++) {
        const t = Date.now()
        const { runId } = await engine.dispatch('where', { ms: 0 })
        const info = await engine.settled(runId, AbortSignal.timeout(30_000))
        if (info?.status !== 'complete') throw new Error(`run ${runId} ended ${info?.status}`)
        const journal = await m.readJournal(state.storage, runId)
        const queued = journal.find((r) => r.type === 'status' && r.status === 'queued')
        const running = journal.find((r) => r.type === 'status' && r.status === 'running')
        if (i >= 0 && running && queued) samples.push(running.at - t), handoff.push(running.at - queued.at)
      }
      const mcp = await throughMcp(m, state, engine, root, n)
      return { ...latency(samples), handoff: latency(handoff), mcp }
    } finally {
      await engine.close()
    }
  } finally {
    worker.kill('SIGTERM')
    await exited
    await state.close()
    await server.stop()
  }
}

/**
 * The same hand-off from an MCP client: `dispatch_workflow` on a `marbles mcp --no-work` child (it
 * enqueues; the worker executes), from the call to the journal's `running` stamp (one clock).
 */
async function throughMcp(
  m: Marbles,
  state: Awaited<ReturnType<Marbles['openState']>>,
  engine: Awaited<ReturnType<Marbles['openEngine']>>,
  root: string,
  n: number,
) {
  const client = await connectMarblesMcp(['--root', root, '--source', WORKSPACE, 'mcp', '--no-work'])
  const samples: number[] = []
  try {
    for (let i = -3; i < n; i++) {
      const t = Date.now()
      const ack = await client.callTool({ name: 'dispatch_workflow', arguments: { name: 'where', input: { ms: 0 } } })
      if (ack.isError) throw new Error(`dispatch_workflow failed: ${ack.content[0]?.text}`)
      const runId = ack.structuredContent!.runId as string
      const info = await engine.settled(runId, AbortSignal.timeout(30_000))
      if (info?.status !== 'complete') throw new Error(`run ${runId} ended ${info?.status}`)
      const running = (await m.readJournal(state.storage, runId)).find(
        (r) => r.type === 'status' && r.status === 'running',
      )
      if (i >= 0 && running) samples.push(running.at - t)
    }
  } finally {
    await client.close()
  }
  return latency(samples)
}
