import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { fsStorage } from '@foundry/adapter-fs'
import {
  createKernel,
  memoryStorage,
  renderFactBlock,
  type FactInput,
  type Kernel,
  type Storage,
} from '@foundry/kernel'
import { countTokens } from 'gpt-tokenizer'
import type { BenchContext, Suite } from '../lib/context.js'
import { seedFacts } from '../lib/corpus.js'
import { ms } from '../lib/measure.js'

const require = createRequire(import.meta.url)
const HOOK_BIN = require.resolve('@foundry/hooks/bin')
const HOOKS_LIB = require.resolve('@foundry/hooks/package.json').replace(/package\.json$/, 'dist/index.js')
const PROJECT_LIB = require.resolve('@foundry/project/package.json').replace(/package\.json$/, 'dist/index.js')
const LARKSPUR = new URL('../../packages/hooks/test/fixtures/larkspur-facts.jsonl', import.meta.url)

/** Hook wall time per event at 1k and 10k facts against bare `node`; session-start tokens against eager loading. */
export const hooksSuite: Suite = {
  name: 'hooks',
  about:
    'foundry-hook wall time per event at 1k and 10k facts vs bare node (in process and via a hook server); session-start tokens vs eager loading (chars/4 and o200k)',
  async run(ctx) {
    for (const size of ctx.quick ? [1000] : [1000, 10_000]) await wallTimes(ctx, size)
    await tokens(ctx)
  },
}

async function wallTimes(ctx: BenchContext, size: number): Promise<void> {
  const root = join(ctx.scratch, `hooks-${size}`)
  const storage = fsStorage({ root, durable: false })
  await seedFacts(ctx, storage, size)
  const kernel = createKernel({ storage, root })
  await kernel.memory.index() // INDEX.md and the retriever's snapshot, as any write through the kernel leaves them
  const about = (await kernel.memory.get('fact-0042')).title
  await kernel.close()

  const common = { session_id: 'bench', transcript_path: join(root, 't.jsonl'), cwd: root }
  const events: Array<[hook: string, input: Record<string, unknown>]> = [
    ['session-start', { ...common, hook_event_name: 'SessionStart', source: 'startup' }],
    ['prompt-context', { ...common, hook_event_name: 'UserPromptSubmit', prompt: `Why did we decide this: ${about}?` }],
    [
      'subagent-firewall',
      {
        ...common,
        hook_event_name: 'SubagentStop',
        stop_hook_active: false,
        agent_id: 'b1',
        agent_type: 'reviewer',
        last_assistant_message: 'Done: 3 findings, see the artifact.',
      },
    ],
    ['precompact', { ...common, hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: '' }],
  ]
  const runs = ctx.quick ? 5 : 15
  const off = { FOUNDRY_HOOK_SERVER: 'off' }
  for (const [hook, input] of events) {
    const { hookMs, bareMs, stdout } = interleaved(runs, hook, input, off)
    if (hook === 'prompt-context' && !stdout.includes('additionalContext'))
      throw new Error(`prompt-context injected nothing for "${input.prompt}"`)
    report(
      ctx,
      `${hook} @${size / 1000}k facts (own process)`,
      hookMs,
      bareMs,
      hook === 'prompt-context' && size === 10_000,
    )
  }

  const [, prompt] = events[1]!
  // The same prompt answered by a hook server that keeps the project open (what `foundry mcp` would run).
  const server = await startServer(root)
  try {
    // A session's server has answered a few prompts already: past the lazily opened snapshot, the whole index is loaded.
    for (let i = 0; i < 4; i++) spawnHook('prompt-context', prompt, {})
    const { hookMs, bareMs, stdout } = interleaved(runs, 'prompt-context', prompt, {})
    if (!stdout.includes('additionalContext')) throw new Error('the hook server answered nothing')
    report(ctx, `prompt-context @${size / 1000}k facts (hook server running)`, hookMs, bareMs, size === 10_000)
  } finally {
    server.kill()
  }

  // In its own process again, on the FTS5 retriever (the project configured with `retrieval: "fts"`).
  writeFileSync(join(root, '.foundry', 'config.json'), JSON.stringify({ retrieval: 'fts' }))
  spawnHook('prompt-context', prompt, off) // builds the FTS5 index once
  const fts = interleaved(runs, 'prompt-context', prompt, off)
  if (!fts.stdout.includes('additionalContext')) throw new Error('prompt-context injected nothing on FTS5')
  report(
    ctx,
    `prompt-context @${size / 1000}k facts (own process, FTS5 retriever)`,
    fts.hookMs,
    fts.bareMs,
    size === 10_000,
  )
}

function report(ctx: BenchContext, figure: string, hookMs: number, bareMs: number, targeted: boolean): void {
  const ratio = hookMs / bareMs
  ctx.report({
    suite: 'hooks',
    figure: `${figure}, median wall time`,
    value: `${ms(hookMs)} ms`,
    baseline: `bare node ${ms(bareMs)} ms`,
    ratio,
    ...(targeted && { target: '≤ 1.5× bare node', met: ratio <= 1.5 }),
  })
}

/** Hook and bare `node` runs alternated, so a busy moment of the machine weighs on both; medians. */
function interleaved(runs: number, hook: string, input: Record<string, unknown>, env: Record<string, string>) {
  const hooked: number[] = []
  const bare: number[] = []
  let stdout = ''
  for (let i = 0; i < runs; i++) {
    let t = performance.now()
    stdout = spawnHook(hook, input, env)
    hooked.push(performance.now() - t)
    t = performance.now()
    spawnSync(process.execPath, ['-e', ''])
    bare.push(performance.now() - t)
  }
  return { hookMs: median(hooked), bareMs: median(bare), stdout }
}

function spawnHook(hook: string, input: Record<string, unknown>, env: Record<string, string>): string {
  const run = spawnSync(process.execPath, [HOOK_BIN, hook], {
    input: JSON.stringify(input),
    env: { ...process.env, ...env },
    encoding: 'utf8',
  })
  if (run.status !== 0) throw new Error(`foundry-hook ${hook} exited ${run.status}: ${run.stderr}`)
  return run.stdout
}

/** A process holding the project open and serving its hooks (`serveHooks`), resolved once it listens. */
function startServer(root: string): Promise<ChildProcess> {
  const code = `const { serveHooks } = await import(${JSON.stringify(pathToFileURL(HOOKS_LIB).href)})
const { openProject } = await import(${JSON.stringify(pathToFileURL(PROJECT_LIB).href)})
const project = await openProject({ root: ${JSON.stringify(root)} })
const server = await serveHooks(project)
process.on('SIGTERM', () => void server?.close().then(() => process.exit(0)))
console.log(server ? 'serving' : 'not serving')
setInterval(() => {}, 1 << 30)`
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (line: Buffer) =>
      String(line).startsWith('serving') ? resolve(child) : (child.kill(), reject(new Error(`hook server: ${line}`))),
    )
    child.once('error', reject)
  })
}

/** What session start costs: the index the hook injects against loading every fact, estimated (chars/4) and tokenized (o200k). */
async function tokens(ctx: BenchContext): Promise<void> {
  const larkspur = readFileSync(LARKSPUR, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as FactInput)
  type Fill = (kernel: Kernel, storage: Storage) => Promise<void>
  const memories: Array<[label: string, fill: Fill]> = [
    ['100 facts', (_k, s) => seedFacts(ctx, s, 100)],
    [`Larkspur, ${larkspur.length} hand-written facts`, (k) => writeAll(k, larkspur)],
    ['1k facts', (_k, s) => seedFacts(ctx, s, 1000)],
    ...(ctx.quick ? [] : [['10k facts', (_k: Kernel, s: Storage) => seedFacts(ctx, s, 10_000)] as [string, Fill]]),
  ]
  for (const [label, fill] of memories) {
    const storage = memoryStorage()
    const kernel = createKernel({ storage })
    await fill(kernel, storage)
    const index = await kernel.memory.readIndex()
    const eager = (await kernel.memory.list()).map(renderFactBlock)
    const { figures } = await kernel.tokens.report()
    const indexReal = countTokens(index)
    const eagerReal = eager.reduce((n, block) => n + countTokens(block), 0)
    const saving = (index: number, eager: number) => `${(100 * (1 - index / eager)).toFixed(1)}%`
    ctx.report({
      suite: 'hooks',
      figure: `session-start tokens, ${label}: index-first (chars/4 · o200k)`,
      value: `~${figures.indexFirstTokens} · ${indexReal} (saves ${saving(figures.indexFirstTokens, figures.eagerTokens)} · ${saving(indexReal, eagerReal)})`,
      baseline: `eager ~${figures.eagerTokens} · ${eagerReal}`,
    })
  }
}

async function writeAll(kernel: Kernel, facts: FactInput[]): Promise<void> {
  for (const fact of facts) await kernel.memory.write(fact)
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[sorted.length >> 1]!
}
