import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { fsStorage } from '@foundry/adapter-fs'
import { createKernel } from '@foundry/kernel'
import type { BenchContext, Suite } from '../lib/context.js'
import { seedFacts, syntheticFacts } from '../lib/corpus.js'
import { latency, ms, sample } from '../lib/measure.js'
import { runNode } from '../lib/child.js'

const label = (size: number) => (size >= 1000 ? `${size / 1000}k` : String(size))

/** The floor under any durable write: a temporary file written, fsynced and renamed over the target. */
function bareAtomicWrite(dir: string, name: string, data: string): void {
  const temp = join(dir, `.${name}.tmp`)
  const fd = openSync(temp, 'w')
  try {
    writeSync(fd, data)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temp, join(dir, name))
}

/**
 * What a new process pays for its first search: `node` opens fsStorage and a kernel and runs one
 * `memory.search`. Timed inside the child from before its imports to after the search, and from
 * outside as the child's whole life (spawn to exit).
 */
const FRESH_SEARCH = `
const t0 = performance.now()
const { fsStorage } = await import(process.env.FOUNDRY_FS)
const { createKernel } = await import(process.env.FOUNDRY_KERNEL)
const imported = performance.now()
const kernel = createKernel({ storage: fsStorage({ root: process.argv[1] }) })
const result = await kernel.memory.search({ query: process.argv[2] })
const t1 = performance.now()
await kernel.close()
process.stdout.write(JSON.stringify({ inside: t1 - t0, imports: imported - t0, hits: result.hits.length }))
`

interface Run {
  /** Imports to first search, inside the child. */
  inside: number
  /** The imports alone (kernel, adapter and their dependencies). */
  imports: number
  /** Spawn to exit, from the parent. */
  wall: number
  hits: number
}

async function freshSearch(root: string, query: string): Promise<Run> {
  const env = {
    FOUNDRY_FS: import.meta.resolve('@foundry/adapter-fs'),
    FOUNDRY_KERNEL: import.meta.resolve('@foundry/kernel'),
  }
  const { wall, stdout } = await runNode(['--input-type=module', '-e', FRESH_SEARCH, root, query], env)
  const { inside, imports, hits } = JSON.parse(stdout) as { inside: number; imports: number; hits: number }
  return { inside, imports, wall, hits }
}

const median = (values: number[]) => latency(values).p50

/**
 * fsStorage through the kernel. Writes: `memory.write` at 100, 1k and 10k facts (a warm kernel:
 * seeded, then one search), against a bare atomic write (tmp, fsync, rename) of one fact file on the same disk.
 * Cold start: a new `node` process's first `memory.search` at 10k facts, with the retriever's
 * snapshot stored and without it, against spawning a bare `node`.
 */
export const fsSuite: Suite = {
  name: 'fs',
  about:
    "fsStorage: memory_write latency at 100/1k/10k facts vs a bare atomic write; a new process's first search with and without the stored snapshot",
  async run(ctx: BenchContext) {
    const sizes = ctx.quick ? [100, 1000] : [100, 1000, 10_000]
    const n = ctx.quick ? 40 : 150
    let largest = ''
    for (const size of sizes) {
      const root = join(ctx.scratch, `fs-suite-${size}`)
      mkdirSync(root, { recursive: true })
      // Seeding is setup, not measured: straight into storage, without fsync.
      const seeder = fsStorage({ root, durable: false })
      let t = performance.now()
      await seedFacts(ctx, seeder, size)
      ctx.log(`  seeded ${size} fact files in ${ms(performance.now() - t)} ms`)

      const storage = fsStorage({ root })
      const kernel = createKernel({ storage })
      t = performance.now()
      await kernel.memory.search({ query: 'warm up the index' })
      ctx.log(`  first search (list, parse and index ${size} facts) ${ms(performance.now() - t)} ms`)
      const extra = syntheticFacts(ctx, size + n + 10).slice(size)
      let next = 0
      const write = await sample(n, () => kernel.memory.write(extra[next++]!))
      await kernel.close()

      const factText = readFileSync(storage.locate('facts', 'fact-0001'), 'utf8')
      const bareDir = join(root, 'bare')
      mkdirSync(bareDir, { recursive: true })
      const bare = await sample(n, (i) => bareAtomicWrite(bareDir, `f${i}.md`, factText))
      rmSync(bareDir, { recursive: true, force: true })
      const target =
        size === 10_000 ? { target: '≤ 20 ms p50, ≤ 40 ms p99', met: write.p50 <= 20 && write.p99 <= 40 } : {}
      ctx.report({
        suite: 'fs',
        figure: `memory_write p50 / p99 @${label(size)} (fsStorage, durable)`,
        value: `${ms(write.p50)} / ${ms(write.p99)} ms`,
        baseline: `atomic write of ${Buffer.byteLength(factText)} B (tmp+fsync+rename) p50 ${ms(bare.p50)} ms`,
        ratio: write.p50 / bare.p50,
        ...target,
      })
      largest = root
    }

    // A new process on the largest store. The store's snapshot is current: the kernel above closed (and flushed) it.
    const size = sizes[sizes.length - 1]!
    const runs = ctx.quick ? 3 : 5
    const query = syntheticFacts(ctx, 3)[2]!.title.split(' ').slice(0, 4).join(' ')
    const bareNode: number[] = []
    for (let i = 0; i < runs; i++) bareNode.push(await runNode(['-e', '']).then((r) => r.wall))
    const warm: Run[] = []
    for (let i = 0; i < runs; i++) warm.push(await freshSearch(largest, query))
    const cold: Run[] = []
    for (let i = 0; i < runs; i++) {
      rmSync(join(largest, '.foundry', 'cache', 'meta', 'retriever'), { recursive: true, force: true })
      cold.push(await freshSearch(largest, query))
    }
    if (warm.some((r) => r.hits === 0) || cold.some((r) => r.hits === 0))
      throw new Error(`fresh search for "${query}" found nothing`)
    const baseline = `bare \`node -e ''\` ${ms(median(bareNode))} ms`
    const figures = (runs: Run[]) => {
      const inside = median(runs.map((r) => r.inside))
      const imports = median(runs.map((r) => r.imports))
      return {
        inside,
        wall: median(runs.map((r) => r.wall)),
        text: `${ms(inside)} ms (imports ${ms(imports)} + open and search ${ms(inside - imports)}) / ${ms(median(runs.map((r) => r.wall)))} ms`,
      }
    }
    const stored = figures(warm)
    ctx.report({
      suite: 'fs',
      figure: `new process, first memory_search @${label(size)}, snapshot stored: imports→result / whole process`,
      value: stored.text,
      baseline,
      ratio: stored.wall / median(bareNode),
      target: '≤ 100 ms imports→result',
      met: stored.inside <= 100,
    })
    const none = figures(cold)
    ctx.report({
      suite: 'fs',
      figure: `new process, first memory_search @${label(size)}, no snapshot (lists, indexes, snapshots): imports→result / whole process`,
      value: none.text,
      baseline,
      ratio: none.wall / median(bareNode),
    })
  },
}
