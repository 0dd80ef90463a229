import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fsStorage } from '@foundry/adapter-fs'
import { createKernel } from '@foundry/kernel'
import { initProject } from '@foundry/project'
import type { BenchContext, Suite } from '../lib/context.js'
import { seedFacts } from '../lib/corpus.js'
import { ms } from '../lib/measure.js'

/** What this suite uses of the SDK's `Client`. */
interface McpClient {
  connect(transport: unknown): Promise<void>
  close(): Promise<void>
}
const fromCli = createRequire(createRequire(import.meta.url).resolve('@foundry/cli/package.json'))
const { Client } = fromCli('@modelcontextprotocol/sdk/client/index.js') as { Client: new (info: { name: string; version: string }) => McpClient }
const { StdioClientTransport, getDefaultEnvironment } = fromCli('@modelcontextprotocol/sdk/client/stdio.js') as {
  StdioClientTransport: new (options: { command: string; args: string[]; env: Record<string, string>; stderr: 'ignore' }) => unknown
  getDefaultEnvironment(): Record<string, string>
}

const REPO = new URL('../../', import.meta.url).pathname
/** A workspace that declares an agent (the marbles tests' fixture). */
const AGENTS = join(REPO, 'packages', 'marbles', 'test', 'fixtures', 'agents')

/** The three bins of one build of the repository (this one, or `--before DIR`: a checkout built with `npm run setup`). */
interface Build {
  label: string
  hook: string
  foundry: string
  marbles: string
}

function build(label: string, root: string): Build {
  const bin = (pkg: string, name: string) => join(root, 'packages', pkg, 'dist', 'bin', name)
  return { label, hook: bin('hooks', 'foundry-hook.js'), foundry: bin('foundry', 'foundry.js'), marbles: bin('marbles', 'marbles.js') }
}

/**
 * A new process for each command, as a hook, a CLI call or a client's spawn makes it: wall time to the
 * command's end (to the answer of `initialize` for the servers) against bare `node` in the same run,
 * samples interleaved so a busy moment weighs on every row alike. With `--before DIR`, the same rows
 * for that build, measured in the same loop.
 */
export const coldSuite: Suite = {
  name: 'cold',
  about:
    'new processes vs bare node, interleaved: foundry-hook prompt-context (own process) at 1k and 10k facts, `foundry list` and `foundry search` at 1k and 10k, `foundry mcp` and `marbles mcp` spawn + initialize; --before DIR measures an earlier build beside this one',
  async run(ctx) {
    const builds = [...(ctx.before ? [build('before', ctx.before)] : []), build(ctx.before ? 'after' : 'this build', REPO)]
    for (const b of builds) for (const bin of [b.hook, b.foundry, b.marbles]) if (!existsSync(bin)) throw new Error(`${bin} is not built: run npm run setup in ${b.label === 'before' ? ctx.before : REPO}`)
    const runs = ctx.quick ? 5 : 15
    const sizes = ctx.quick ? [1000] : [1000, 10_000]
    for (const size of sizes) {
      const { root, about } = await seeded(ctx, size)
      const prompt = JSON.stringify({ session_id: 'bench', transcript_path: join(root, 't.jsonl'), cwd: root, hook_event_name: 'UserPromptSubmit', prompt: `Why did we decide this: ${about}?` })
      const rows: Row[] = [
        { figure: `foundry-hook prompt-context @${size / 1000}k facts (own process)`, target: 1.5, run: (b) => command(b.hook, ['prompt-context'], root, prompt, 'additionalContext') },
        { figure: `foundry list @${size / 1000}k facts (new process)`, target: 2, run: (b) => command(b.foundry, ['list'], root, undefined, 'fact-0042') },
        { figure: `foundry search @${size / 1000}k facts (new process)`, target: 2, run: (b) => command(b.foundry, ['search', about], root, undefined, 'fact-0042') },
      ]
      await measure(ctx, rows, builds, runs)
    }
    const empty = join(ctx.scratch, 'cold-servers')
    await initProject({ root: empty, storage: 'fs' })
    const servers: Row[] = [
      { figure: '`foundry mcp` spawn + initialize (empty project)', target: 2, run: (b) => initialize(b.foundry, ['--root', empty, 'mcp']) },
      { figure: '`marbles mcp` spawn + initialize (a workspace with an agent)', target: 2, run: (b) => initialize(b.marbles, ['--root', empty, '--source', AGENTS, 'mcp']) },
    ]
    await measure(ctx, servers, builds, runs, bareSpawned)
  },
}

interface Row {
  figure: string
  /** The target ratio to bare node. */
  target: number
  /** One run on a build: its wall time in ms. */
  run(build: Build): Promise<number> | number
}

/** Bare `node` run to its end, as the command rows run their processes (spawnSync). */
function bareSync(): number {
  const t = performance.now()
  spawnSync(process.execPath, ['-e', ''])
  return performance.now() - t
}

/** Bare `node` spawned and awaited, as the SDK client spawns a server (the marbles suite's baseline). */
async function bareSpawned(): Promise<number> {
  const t = performance.now()
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore', env: getDefaultEnvironment() })
  await new Promise((resolve) => child.once('exit', resolve))
  return performance.now() - t
}

async function measure(ctx: BenchContext, rows: Row[], builds: Build[], runs: number, bareRun: () => number | Promise<number> = bareSync): Promise<void> {
  // One untimed run of each: the first run of a build writes its compile cache, as a user's first call does.
  for (const row of rows) for (const b of builds) await row.run(b)
  const bare: number[] = []
  const times = rows.map(() => builds.map(() => [] as number[]))
  for (let i = 0; i < runs; i++) {
    bare.push(await bareRun())
    for (const [r, row] of rows.entries()) for (const [k, b] of builds.entries()) times[r]![k]!.push(await row.run(b))
  }
  const baseline = median(bare)
  for (const [r, row] of rows.entries()) {
    const [before, after] = builds.length === 2 ? times[r]!.map(median) : [undefined, median(times[r]![0]!)]
    const ratio = after! / baseline
    ctx.report({
      suite: 'cold',
      figure: `${row.figure}, median wall time`,
      value: `${before === undefined ? '' : `${ms(before)} ms (${(before / baseline).toFixed(2)}×) → `}${ms(after!)} ms`,
      baseline: `bare node ${ms(baseline)} ms`,
      ratio,
      target: `≤ ${row.target}× bare node`,
      met: ratio <= row.target,
    })
  }
}

/** A project of `size` facts on the folder storage, indexed as any write through the kernel leaves it. */
async function seeded(ctx: BenchContext, size: number): Promise<{ root: string; about: string }> {
  const root = join(ctx.scratch, `cold-${size}`)
  const storage = fsStorage({ root, durable: false })
  await seedFacts(ctx, storage, size)
  const kernel = createKernel({ storage, root })
  await kernel.memory.index()
  const about = (await kernel.memory.get('fact-0042')).title
  await kernel.close()
  return { root, about }
}

function command(bin: string, args: string[], cwd: string, input: string | undefined, expect: string): number {
  const t = performance.now()
  const run = spawnSync(process.execPath, [bin, ...args], { cwd, input, encoding: 'utf8', maxBuffer: 1 << 28, env: { ...process.env, FOUNDRY_HOOK_SERVER: 'off' } })
  const elapsed = performance.now() - t
  if (run.status !== 0 || !run.stdout.includes(expect)) throw new Error(`${bin} ${args.join(' ')} exited ${run.status} without "${expect}": ${run.stderr.slice(0, 500)}`)
  return elapsed
}

async function initialize(bin: string, args: string[]): Promise<number> {
  const t = performance.now()
  const client = new Client({ name: 'cold-bench', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, ...args], env: getDefaultEnvironment(), stderr: 'ignore' }))
  const elapsed = performance.now() - t
  await client.close()
  return elapsed
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[sorted.length >> 1]!
}
