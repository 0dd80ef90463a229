import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fsStorage } from '@foundry/adapter-fs'
import { sqliteStorage } from '@foundry/adapter-sqlite'
import type { Storage } from '@foundry/kernel'
import type { BenchContext, Suite } from '../lib/context.js'
import { seedFacts, syntheticFacts } from '../lib/corpus.js'
import { latency, ms } from '../lib/measure.js'
import { runNode } from '../lib/child.js'

type Kind = 'sqlite' | 'fs'

/**
 * One new process on a store: `first` times its first `memory.write` (after the imports and the
 * kernel are set up), `list` times one full read of the facts (what every first write paid before
 * the write catalog), `rss` writes every fact of a JSON file itself, then reports its resident
 * memory, and again after `memory.warm()` loaded the retriever (what a server does).
 */
const CHILD = `
const { createKernel } = await import(process.env.FOUNDRY_KERNEL)
const [kind, where, mode, file, from] = process.argv.slice(1)
const storage = kind === 'sqlite'
  ? (await import(process.env.FOUNDRY_SQLITE)).sqliteStorage({ path: where })
  : (await import(process.env.FOUNDRY_FS)).fsStorage({ root: where, durable: mode !== 'rss' })
const kernel = createKernel({ storage })
const facts = JSON.parse((await import('node:fs')).readFileSync(file, 'utf8'))
const out = {}
if (mode === 'list') {
  const t = performance.now()
  out.facts = (await storage.list('facts')).length
  out.ms = performance.now() - t
} else if (mode === 'first') {
  const t = performance.now()
  const cpu = process.cpuUsage()
  out.action = (await kernel.memory.write(facts[Number(from)])).action
  out.ms = performance.now() - t
  const used = process.cpuUsage(cpu)
  out.cpu = (used.user + used.system) / 1000
} else {
  for (const fact of facts) await kernel.memory.write(fact)
  globalThis.gc?.()
  out.rss = process.memoryUsage().rss / 2 ** 20
  await kernel.memory.warm()
  globalThis.gc?.()
  out.warm = process.memoryUsage().rss / 2 ** 20
}
await kernel.close()
process.stdout.write(JSON.stringify(out))
`

interface ChildOut {
  ms?: number
  /** CPU time of the write (user + system): what a loaded machine does not inflate. */
  cpu?: number
  facts?: number
  action?: string
  rss?: number
  warm?: number
}

async function child(
  kind: Kind,
  where: string,
  mode: 'first' | 'list' | 'rss',
  file: string,
  from = 0,
): Promise<ChildOut> {
  const env = {
    FOUNDRY_KERNEL: import.meta.resolve('@foundry/kernel'),
    FOUNDRY_FS: import.meta.resolve('@foundry/adapter-fs'),
    FOUNDRY_SQLITE: import.meta.resolve('@foundry/adapter-sqlite'),
  }
  const { stdout } = await runNode(
    ['--expose-gc', '--input-type=module', '-e', CHILD, kind, where, mode, file, String(from)],
    env,
  )
  return JSON.parse(stdout) as ChildOut
}

const label = (size: number) => (size >= 1000 ? `${size / 1000}k` : String(size))

/** A store of `size` facts put straight into storage (setup, not measured: no fsync), in one section. */
async function seeded(ctx: BenchContext, kind: Kind, name: string, size: number): Promise<string> {
  const dir = join(ctx.scratch, name)
  mkdirSync(dir, { recursive: true })
  const where = kind === 'sqlite' ? join(dir, 'foundry.db') : dir
  const storage: Storage =
    kind === 'sqlite' ? sqliteStorage({ path: where }) : fsStorage({ root: where, durable: false })
  const t = performance.now()
  if (size) await storage.exclusive(() => seedFacts(ctx, storage, size))
  await storage.close?.()
  ctx.log(`  ${kind}: seeded ${size} facts in ${ms(performance.now() - t)} ms`)
  return where
}

/** The first write of a new process at `size` facts, against one full read of them in a new process. */
async function firstWrite(ctx: BenchContext, kind: Kind, size: number, inputs: string): Promise<void> {
  const where = await seeded(ctx, kind, `open-first-${kind}-${size}`, size)
  // The facts were put without the write path: the first writer builds the catalog (the slow path, once).
  const build = await child(kind, where, 'first', inputs, 0)
  ctx.log(`  ${kind} @${label(size)}: the catalog built by the first write in ${ms(build.ms!)} ms`)
  const runs = ctx.quick ? 3 : 7
  const writes: number[] = []
  const cpus: number[] = []
  for (let i = 1; i <= runs; i++) {
    const out = await child(kind, where, 'first', inputs, i)
    writes.push(out.ms!)
    cpus.push(out.cpu!)
  }
  const lists: number[] = []
  for (let i = 0; i < 3; i++) lists.push((await child(kind, where, 'list', inputs)).ms!)
  const write = latency(writes).p50
  const list = latency(lists).p50
  ctx.report({
    suite: 'open',
    figure: `${kind}: first memory_write of a new process @${label(size)} facts (p50 of ${runs} processes; the catalog built once before: ${ms(build.ms!)} ms)`,
    value: `${ms(write)} ms (CPU ${ms(latency(cpus).p50)} ms)`,
    baseline: `one full read of the facts, new process: ${ms(list)} ms`,
    ratio: write / list,
    target: size >= 100_000 ? '≤ 50 ms' : undefined,
    met: size >= 100_000 ? write <= 50 : undefined,
  })
}

/** RSS of a process after writing `count` facts itself on a store that held `base` before (the catalog built beforehand). */
async function rssAfterWrites(
  ctx: BenchContext,
  kind: Kind,
  base: number,
  count: number,
  inputs: string,
  seedInputs: string,
): Promise<ChildOut> {
  const where = await seeded(ctx, kind, `open-rss-${kind}-${base}`, base)
  if (base) await child(kind, where, 'first', seedInputs, 0) // the catalog, in a process of its own
  const t = performance.now()
  const out = await child(kind, where, 'rss', inputs)
  ctx.log(
    `  ${kind}: ${count} writes on ${base} facts in one process, ${ms(performance.now() - t)} ms: RSS ${out.rss!.toFixed(0)} MB, ${out.warm!.toFixed(0)} MB warm`,
  )
  return out
}

/**
 * Opening a project: the first write of a new process at 10k and 100k facts (SQLite and folder)
 * against a full read of the facts in the same run, and the RSS of a process after writing 10k facts
 * itself, on an empty store and on one of 90k (100k after).
 */
export const openSuite: Suite = {
  name: 'open',
  about:
    'opening a project: first write of a new process at 10k/100k facts vs a full read; RSS after writing 10k facts at 10k and 100k',
  async run(ctx: BenchContext) {
    const sizes = ctx.quick ? [1000, 5000] : [10_000, 100_000]
    const written = ctx.quick ? 1000 : 10_000
    const largest = sizes[sizes.length - 1]!
    const all = syntheticFacts(ctx, largest + written + 20)
    const file = (name: string, facts: unknown[]) => {
      const path = join(ctx.scratch, `${name}.json`)
      writeFileSync(path, JSON.stringify(facts))
      return path
    }
    for (const kind of ['sqlite', 'fs'] as const) {
      for (const size of sizes) await firstWrite(ctx, kind, size, file(`open-new-${size}`, all.slice(size, size + 20)))
      const small = await rssAfterWrites(
        ctx,
        kind,
        0,
        written,
        file('open-rss-small', all.slice(0, written)),
        file('open-none', all.slice(0, 1)),
      )
      const base = largest - written
      const large = await rssAfterWrites(
        ctx,
        kind,
        base,
        written,
        file('open-rss-large', all.slice(base, base + written)),
        file('open-seed-next', all.slice(base, base + 1)),
      )
      ctx.report({
        suite: 'open',
        figure: `${kind}: RSS of a process after writing ${label(written)} facts itself (relaxed fsync) / after memory.warm() loads the retriever`,
        value: `${small.rss!.toFixed(0)} MB / ${small.warm!.toFixed(0)} MB`,
        target: '≤ 120 MB',
        met: small.rss! <= 120,
      })
      ctx.report({
        suite: 'open',
        figure: `${kind}: the same at ${label(largest)} facts (${label(base)} put before, ${label(written)} written) / warm`,
        value: `${large.rss!.toFixed(0)} MB / ${large.warm!.toFixed(0)} MB`,
        baseline: `at ${label(written)}: ${small.rss!.toFixed(0)} MB`,
        ratio: large.rss! / small.rss!,
        target: '≤ 1.3× (write path)',
        met: large.rss! / small.rss! <= 1.3,
      })
    }
  },
}
