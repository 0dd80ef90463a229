import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fsStorage } from '@foundry/adapter-fs'
import { hookSocketPath } from '@foundry/hooks'
import { createKernel } from '@foundry/kernel'
import { initProject } from '@foundry/project'
import type { BenchContext, Suite } from '../lib/context.js'
import { seedFacts, syntheticFacts } from '../lib/corpus.js'
import { ms } from '../lib/measure.js'
import { aiDevkit, capped, type PeerClient } from '../lib/peers-systems.js'
import { pluginHookFlags } from './server-rss.js'

/** What this suite uses of the SDK's `Client`: what the peers suite uses. */
type McpClient = PeerClient
const fromCli = createRequire(createRequire(import.meta.url).resolve('@foundry/cli/package.json'))
const { Client } = fromCli('@modelcontextprotocol/sdk/client/index.js') as {
  Client: new (info: { name: string; version: string }) => McpClient
}
const { StdioClientTransport, getDefaultEnvironment } = fromCli('@modelcontextprotocol/sdk/client/stdio.js') as {
  StdioClientTransport: new (options: {
    command: string
    args: string[]
    env: Record<string, string>
    cwd?: string
    stderr: 'ignore'
  }) => unknown
  getDefaultEnvironment(): Record<string, string>
}

const REPO = new URL('../../', import.meta.url).pathname
/** Preloaded into every command row's process and bare node's: its CPU time on stderr at exit. */
const CPU_AT_EXIT = new URL('../lib/cpu-at-exit.cjs', import.meta.url).pathname
/** A workspace that declares an agent (the marbles tests' fixture). */
const AGENTS = join(REPO, 'packages', 'marbles', 'test', 'fixtures', 'agents')

/** The three bins of one build of the repository (this one, or `--before DIR`: a checkout built with `npm run setup`). */
interface Build {
  label: string
  hook: string
  /** The Node options the build's plugin runs its hooks with (its hooks.json). */
  hookFlags: string[]
  foundry: string
  marbles: string
  /**
   * The build's own temporary folder (`TMPDIR` of its processes), where its bins keep their V8 code
   * cache: the cache holds one build at a time, so two builds (or another checkout's runs) sharing
   * one folder would evict each other's and every run would compile, as no user's machine does.
   */
  tmp: string
}

function build(label: string, root: string, scratch: string): Build {
  const bin = (pkg: string, name: string) => join(root, 'packages', pkg, 'dist', 'bin', name)
  const tmp = join(scratch, `cold-tmp-${label.replace(/\W+/g, '-')}`)
  mkdirSync(tmp, { recursive: true })
  return {
    label,
    // The CommonJS entries; an earlier build (`--before`) may have only the ES module ones.
    hook: existsSync(bin('hooks', 'foundry-hook.cjs'))
      ? bin('hooks', 'foundry-hook.cjs')
      : bin('hooks', 'foundry-hook.js'),
    hookFlags: pluginHookFlags(root),
    foundry: existsSync(bin('foundry', 'foundry.cjs')) ? bin('foundry', 'foundry.cjs') : bin('foundry', 'foundry.js'),
    marbles: bin('marbles', 'marbles.js'),
    tmp,
  }
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
    'new processes vs bare node, interleaved, wall and CPU time: foundry-hook prompt-context at 1k and 10k facts (in its own process, and answered by a running `foundry mcp` over its socket), `foundry list` and `foundry search` at 1k and 10k, the first answer of a new `foundry mcp` session after initialize (asked at once, and 1 s later as an agent asks) vs ai-devkit on the same records, `foundry mcp` and `marbles mcp` spawn + initialize; --before DIR measures an earlier build beside this one',
  async run(ctx) {
    const builds = [
      ...(ctx.before ? [build('before', ctx.before, ctx.scratch)] : []),
      build(ctx.before ? 'after' : 'this build', REPO, ctx.scratch),
    ]
    for (const b of builds)
      for (const bin of [b.hook, b.foundry, b.marbles])
        if (!existsSync(bin))
          throw new Error(`${bin} is not built: run npm run setup in ${b.label === 'before' ? ctx.before : REPO}`)
    const runs = ctx.quick ? 5 : 15
    const sizes = ctx.quick ? [1000] : [1000, 10_000]
    for (const size of sizes) {
      const { root: seededRoot, about } = await seeded(ctx, size)
      // Each build on its own copy of the project: builds whose snapshot formats differ would each read
      // the other's as an earlier format, and every run would index the memory again.
      const rootOf = new Map(
        builds.map((b): [Build, string] => {
          if (builds.length === 1) return [b, seededRoot]
          const own = `${seededRoot}-${b.label.replace(/\W+/g, '-')}`
          cpSync(seededRoot, own, { recursive: true })
          return [b, own]
        }),
      )
      const root = (b: Build) => rootOf.get(b)!
      const prompt = (b: Build) =>
        JSON.stringify({
          session_id: 'bench',
          transcript_path: join(root(b), 't.jsonl'),
          cwd: root(b),
          hook_event_name: 'UserPromptSubmit',
          prompt: `Why did we decide this: ${about}?`,
        })
      // A running `foundry mcp` per build answers the hook over its socket (the served row); the other rows
      // set FOUNDRY_HOOK_SERVER=off, so the hook runs in its own process as it does without a server.
      const servers = await Promise.all(builds.map((b) => hookServer(b, root(b))))
      const rows: Row[] = [
        {
          figure: `foundry-hook prompt-context @${size / 1000}k facts (own process, no hook server)`,
          target: 1.5,
          run: (b) =>
            command(b, b.hook, ['prompt-context'], root(b), prompt(b), 'additionalContext', { flags: b.hookFlags }),
        },
        {
          figure: `foundry-hook prompt-context @${size / 1000}k facts (answered by a running \`foundry mcp\` over its socket; this process only)`,
          target: 1.5,
          run: (b) =>
            command(b, b.hook, ['prompt-context'], root(b), prompt(b), 'additionalContext', {
              served: true,
              flags: b.hookFlags,
            }),
        },
        {
          figure: `foundry list @${size / 1000}k facts (new process)`,
          target: 2,
          run: (b) => command(b, b.foundry, ['list'], root(b), undefined, 'fact-0042'),
        },
        {
          figure: `foundry search @${size / 1000}k facts (new process)`,
          target: 2,
          run: (b) => command(b, b.foundry, ['search', about], root(b), undefined, 'fact-0042'),
        },
      ]
      await measure(ctx, rows, builds, runs)
      await Promise.all(servers.map((server) => server.close()))
      await firstAnswers(ctx, root, size, about, builds, runs)
    }
    const empty = join(ctx.scratch, 'cold-servers')
    await initProject({ root: empty, storage: 'fs' })
    const servers: Row[] = [
      {
        figure: '`foundry mcp` spawn + initialize (empty project)',
        target: 2,
        run: (b) => initialize(b, b.foundry, ['--root', empty, 'mcp']),
      },
      {
        figure: '`marbles mcp` spawn + initialize (a workspace with an agent)',
        target: 2,
        run: (b) => initialize(b, b.marbles, ['--root', empty, '--source', AGENTS, 'mcp']),
      },
    ]
    await measure(ctx, servers, builds, runs, bareSpawned)
  },
}

interface Row {
  figure: string
  /** The target ratio to bare node. */
  target: number
  /** One run on a build: its wall time in ms, and the process's CPU time when measured. */
  run(build: Build): Promise<Sample> | Sample
}

/** One run: wall time to the end (or to the answer), and CPU time (user + system) of the whole process. */
interface Sample {
  wall: number
  cpu?: number
}

/** Bare `node` run to its end, as the command rows run their processes (spawnSync), with the same preload. */
function bareSync(): Sample {
  const t = performance.now()
  const run = spawnSync(process.execPath, ['-r', CPU_AT_EXIT, '-e', ''], { encoding: 'utf8' })
  return { wall: performance.now() - t, cpu: cpuOf(run.stderr) }
}

/** The CPU time `cpu-at-exit.cjs` printed last on stderr. */
function cpuOf(stderr: string): number | undefined {
  const found = /foundry-bench-cpu ([\d.]+)\s*$/.exec(stderr)
  return found ? Number(found[1]) : undefined
}

/** Bare `node` spawned and awaited, as the SDK client spawns a server (the marbles suite's baseline). */
async function bareSpawned(): Promise<Sample> {
  const t = performance.now()
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore', env: getDefaultEnvironment() })
  await new Promise((resolve) => child.once('exit', resolve))
  return { wall: performance.now() - t }
}

async function measure(
  ctx: BenchContext,
  rows: Row[],
  builds: Build[],
  runs: number,
  bareRun: () => Sample | Promise<Sample> = bareSync,
): Promise<void> {
  // One untimed run of each: the first run of a build writes its compile cache, as a user's first call does.
  for (const row of rows) for (const b of builds) await row.run(b)
  const bare: Sample[] = []
  const samples = rows.map(() => builds.map(() => [] as Sample[]))
  for (let i = 0; i < runs; i++) {
    bare.push(await bareRun())
    for (const [r, row] of rows.entries())
      for (const k of inTurn(builds.length, i)) samples[r]![k]!.push(await row.run(builds[k]!))
  }
  for (const what of ['wall', 'cpu'] as const) {
    const of = (list: Sample[]) => list.map((s) => s[what]).filter((v): v is number => v !== undefined)
    if (of(bare).length < bare.length) continue // this baseline has no CPU time: wall only
    const baseline = median(of(bare))
    for (const [r, row] of rows.entries()) {
      const [before, after] =
        builds.length === 2 ? samples[r]!.map((list) => median(of(list))) : [undefined, median(of(samples[r]![0]!))]
      const ratio = after! / baseline
      ctx.report({
        suite: 'cold',
        figure: `${row.figure}, median ${what === 'wall' ? 'wall' : 'CPU'} time`,
        value: `${before === undefined ? '' : `${ms(before)} ms (${(before / baseline).toFixed(2)}×) → `}${ms(after!)} ms`,
        baseline: `bare node ${ms(baseline)} ms`,
        ratio,
        target: `≤ ${row.target}× bare node`,
        met: ratio <= row.target,
      })
    }
  }
}

/**
 * A new `foundry mcp` session on the seeded project (each build), and a new ai-devkit session on
 * the same records (seeded once through its own tool, 8 at a time): spawn, initialize, then the time
 * to the answer of one search, the session's first question, asked at once and after a pause.
 * Sessions interleaved round by round.
 */
async function firstAnswers(
  ctx: BenchContext,
  root: (b: Build) => string,
  size: number,
  about: string,
  builds: Build[],
  runs: number,
): Promise<void> {
  const env = getDefaultEnvironment()
  const devkit = aiDevkit(env)
  const home = join(ctx.scratch, `cold-ai-devkit-${size}`)
  mkdirSync(home, { recursive: true })
  const seeding = await session(devkit.launch(home))
  const t = performance.now()
  // Its titles are kept unique (each pass over the corpus has its own scope in Foundry).
  const records = syntheticFacts(ctx, size).map((f) => ({
    title: f.scope && f.scope !== 'project' ? `${f.title} (${f.scope})` : f.title,
    body: f.body,
    type: 'domain' as const,
  }))
  let refused = 0
  await capped(records, 8, async (record) => void ((await devkit.write(seeding, record)) && refused++))
  await seeding.close()
  ctx.log(`  cold: ai-devkit seeded with ${size - refused} of ${size} records in ${ms(performance.now() - t)} ms`)
  const sessions: Array<{ label: string; start(): Promise<McpClient>; ask(client: McpClient): Promise<unknown> }> = [
    ...builds.map((b) => ({
      label: `foundry mcp (${b.label})`,
      start: () =>
        session({
          command: process.execPath,
          args: [b.foundry, '--root', root(b), 'mcp'],
          env: { ...env, TMPDIR: b.tmp },
        }),
      ask: (client: McpClient) => client.callTool({ name: 'memory_search', arguments: { query: about } }),
    })),
    {
      label: 'ai-devkit',
      start: () => session(devkit.launch(home)),
      ask: (client: McpClient) => devkit.search(client, about),
    },
  ]
  // Asked at once after initialize (the worst case: nothing of the session's start is done yet), and
  // after a pause, as an agent asks: its first call follows the model's first turn, seconds later.
  const pauses = [0, AGENT_PAUSE_MS]
  const times = pauses.map(() => sessions.map(() => [] as number[]))
  // Asked at once, also from the spawn: what a client that asks at once waits in all (a server may do
  // its loading before it answers initialize, or after).
  const fromSpawn = sessions.map(() => [] as number[])
  for (let i = 0; i <= runs; i++) {
    for (const [p, pause] of pauses.entries())
      for (const k of inTurn(sessions.length, i)) {
        const s = sessions[k]!
        const spawned = performance.now()
        const client = await s.start()
        if (pause) await new Promise((resolve) => setTimeout(resolve, pause))
        const asked = performance.now()
        await s.ask(client)
        const answered = performance.now()
        // The first round writes caches, as a first use does.
        if (i > 0) times[p]![k]!.push(answered - asked)
        if (i > 0 && !pause) fromSpawn[k]!.push(answered - spawned)
        await client.close()
      }
  }
  for (const [p, pause] of pauses.entries()) {
    const peer = median(times[p]![sessions.length - 1]!)
    const ours = median(times[p]![sessions.length - 2]!)
    const before = builds.length === 2 ? median(times[p]![0]!) : undefined
    ctx.report({
      suite: 'cold',
      figure: pause
        ? `the same, asked ${pause / 1000} s after initialize (as an agent's first call, after a model turn) @${size / 1000}k facts, median`
        : `first answer of a new \`foundry mcp\` session after initialize @${size / 1000}k facts (memory_search, asked at once), median`,
      value: `${before === undefined ? '' : `${ms(before)} ms → `}${ms(ours)} ms`,
      baseline: `ai-devkit ${ms(peer)} ms (same records, same pause, same run)`,
      ratio: ours / peer,
      target: '≤ 20 ms, ahead of ai-devkit',
      met: ours <= 20 && ours <= peer,
    })
  }
  const [peer, ours] = [median(fromSpawn[sessions.length - 1]!), median(fromSpawn[sessions.length - 2]!)]
  const before = builds.length === 2 ? median(fromSpawn[0]!) : undefined
  ctx.report({
    suite: 'cold',
    figure: `the same asked at once, from the spawn (spawn + initialize + the answer) @${size / 1000}k facts, median`,
    value: `${before === undefined ? '' : `${ms(before)} ms → `}${ms(ours)} ms`,
    baseline: `ai-devkit ${ms(peer)} ms (same records, same run)`,
    ratio: ours / peer,
    target: 'ahead of ai-devkit',
    met: ours <= peer,
  })
}

/**
 * The order of `count` interleaved subjects in round `round`: forwards, then backwards. In a fixed
 * order, the same build measured twice read 1.55× and 1.39× on one row: each takes each place in turn.
 */
function inTurn(count: number, round: number): number[] {
  const order = Array.from({ length: count }, (_, k) => k)
  return round % 2 ? order.reverse() : order
}

/** How long after initialize the paused first question is asked: a model turn, at the short end. */
const AGENT_PAUSE_MS = 1000

/** A connected SDK client on a server spawned as `launch` says. */
async function session(launch: {
  command: string
  args: string[]
  env: Record<string, string>
  cwd?: string
}): Promise<McpClient> {
  const client = new Client({ name: 'cold-bench', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({
      command: launch.command,
      args: launch.args,
      env: launch.env,
      ...(launch.cwd && { cwd: launch.cwd }),
      stderr: 'ignore',
    }),
  )
  return client
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

/**
 * The environment of build `b`'s processes: its own `TMPDIR` (its code cache, and its hook socket's
 * folder: XDG_RUNTIME_DIR is left out, so each build's server and hooks meet in their own folder).
 */
function envOf(b: Build, base: Record<string, string | undefined>): Record<string, string> {
  const { XDG_RUNTIME_DIR: _, ...rest } = base
  return { ...(rest as Record<string, string>), TMPDIR: b.tmp }
}

/**
 * A `foundry mcp` session of build `b` on `root`, serving the project's hooks: resolved once its hook
 * socket is there (the server opens the project after \`initialize\`, then listens), so the served
 * row's hooks are answered by it.
 */
async function hookServer(b: Build, root: string): Promise<McpClient> {
  const client = await session({
    command: process.execPath,
    args: [b.foundry, '--root', root, 'mcp'],
    env: envOf(b, getDefaultEnvironment()),
  })
  const saved = { TMPDIR: process.env.TMPDIR, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR }
  process.env.TMPDIR = b.tmp // hookSocketPath reads them on each call
  delete process.env.XDG_RUNTIME_DIR
  const socket = hookSocketPath(root)
  for (const [name, value] of Object.entries(saved))
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  for (let waited = 0; !existsSync(socket); waited += 50) {
    if (waited > 60_000) throw new Error(`${b.label}: foundry mcp opened no hook socket at ${socket} within 60 s`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return client
}

function command(
  b: Build,
  bin: string,
  args: string[],
  cwd: string,
  input: string | undefined,
  expect: string,
  options: { served?: boolean; flags?: string[] } = {},
): Sample {
  const t = performance.now()
  const env = { ...envOf(b, process.env), FOUNDRY_HOOK_SERVER: options.served ? 'on' : 'off' }
  // The Node options the plugin runs the command with (its hooks'), then the CPU meter.
  const run = spawnSync(process.execPath, [...(options.flags ?? []), '-r', CPU_AT_EXIT, bin, ...args], {
    cwd,
    input,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env,
  })
  const elapsed = performance.now() - t
  if (run.status !== 0 || !run.stdout.includes(expect))
    throw new Error(`${bin} ${args.join(' ')} exited ${run.status} without "${expect}": ${run.stderr.slice(0, 500)}`)
  return { wall: elapsed, cpu: cpuOf(run.stderr) }
}

/** A server of build `b` spawned and initialized (its code cache in the build's own `TMPDIR`, as the command rows'). */
async function initialize(b: Build, bin: string, args: string[]): Promise<Sample> {
  const t = performance.now()
  const client = await session({
    command: process.execPath,
    args: [bin, ...args],
    env: { ...getDefaultEnvironment(), TMPDIR: b.tmp },
  })
  const elapsed = performance.now() - t
  await client.close()
  return { wall: elapsed }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[sorted.length >> 1]!
}
