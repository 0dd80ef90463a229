import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Retriever } from '@foundry/kernel'
import type { RetrievalDoc, SnapshotStore } from '@foundry/kernel/adapter'
import type { BenchContext } from './context.js'
import { factDocs } from './corpus.js'
import { latency, ms } from './measure.js'
import { runNode } from './child.js'

/**
 * A new process opens a bm25 snapshot and answers its first search: the time from a new retriever
 * to its first hits (`revision()`, the snapshot read from a store already in memory, one search), and
 * the bytes allocated on the way (the V8 heap's growth plus what each collection freed, from
 * `v8.GCProfiler`, plus new ArrayBuffer bytes). The parts are read from a JSON file before the clock
 * starts, so only the decode and the search are timed; each build's kernel in processes of its own.
 */
const CHILD = `
const { bm25Retriever } = await import(process.env.BENCH_KERNEL)
const { GCProfiler } = await import('node:v8')
const parts = JSON.parse((await import('node:fs')).readFileSync(process.argv[1], 'utf8'))
const store = { read: async (name) => parts[name], write: async () => {}, remove: async () => {} }
const query = process.argv[2]
globalThis.gc()
const profiler = new GCProfiler()
const before = process.memoryUsage()
profiler.start()
const t = performance.now()
const r = bm25Retriever()
r.attach(store)
const revision = await r.revision()
const hits = await r.search({ text: query, limit: 8 })
const took = performance.now() - t
const after = process.memoryUsage()
const freed = profiler.stop().statistics.reduce((sum, s) => sum + s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize, 0)
const bytes = after.heapUsed - before.heapUsed + freed + Math.max(0, after.arrayBuffers - before.arrayBuffers)
process.stdout.write(JSON.stringify({ took, bytes, revision, hits }))
`

interface ChildOut {
  took: number
  bytes: number
  revision?: string
  hits: Array<{ id: string; score: number }>
}

async function child(kernel: string, parts: string, query: string): Promise<ChildOut> {
  const { stdout } = await runNode(['--expose-gc', '--input-type=module', '-e', CHILD, parts, query], {
    BENCH_KERNEL: kernel,
  })
  return JSON.parse(stdout) as ChildOut
}

/** Index `docs` with `make`'s retriever and keep its snapshot's parts in a JSON file. */
async function snapshotFile(make: () => Retriever, docs: RetrievalDoc[], path: string): Promise<number> {
  const parts: Record<string, string> = {}
  const store: SnapshotStore = {
    read: async (name) => parts[name],
    write: async (name, text) => void (parts[name] = text),
    remove: async (name) => void delete parts[name],
  }
  const r = make()
  r.attach!(store)
  await r.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  await r.close?.()
  writeFileSync(path, JSON.stringify(parts))
  return Object.entries(parts).reduce((sum, [name, text]) => (name === 'head' ? sum : sum + text.length), 0)
}

const label = (size: number) => `${size / 1000}k`
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`

/**
 * The rows: at each size, this build's open + first search (p50 of `runs` processes) against the
 * `--before` build's on the same facts and query (its own snapshot format), time and allocated bytes.
 * Without `--before`, this build's figures alone.
 */
export async function snapshotOpen(ctx: BenchContext, suite: string, sizes: number[]): Promise<void> {
  const after = (await import('@foundry/kernel')).bm25Retriever
  const beforeUrl = ctx.before && pathToFileURL(join(ctx.before, 'packages/kernel/dist/index.js')).href
  const before = beforeUrl ? ((await import(beforeUrl)) as typeof import('@foundry/kernel')).bm25Retriever : undefined
  const runs = ctx.quick ? 3 : 7
  const facts = factDocs(ctx, Math.max(...sizes))
  for (const size of sizes) {
    const docs = facts.slice(0, size)
    const query = `${facts[size >> 1]!.title.split(' ').slice(0, 4).join(' ')} evidenc`
    const builds: Array<[string, () => Retriever, string]> = [['after', after, import.meta.resolve('@foundry/kernel')]]
    if (before && beforeUrl) builds.push(['before', before, beforeUrl])
    const measured: Record<string, { took: number; bytes: number; chars: number; hits: string }> = {}
    for (const [name, make, kernel] of builds) {
      const path = join(ctx.scratch, `snapshot-open-${name}-${size}.json`)
      const chars = await snapshotFile(make, docs, path)
      const outs: ChildOut[] = []
      for (let i = 0; i < runs; i++) outs.push(await child(kernel, path, query))
      if (outs.some((o) => o.revision !== '1')) throw new Error(`${name} @${label(size)}: the snapshot did not open`)
      measured[name] = {
        took: latency(outs.map((o) => o.took)).p50,
        bytes: latency(outs.map((o) => o.bytes)).p50,
        chars,
        hits: JSON.stringify(outs[0]!.hits),
      }
    }
    const now = measured.after!
    const then = measured.before
    if (then && then.hits !== now.hits) throw new Error(`@${label(size)}: the two builds' first hits differ`)
    ctx.report({
      suite,
      figure: `bm25 snapshot opened + first search in a new process @${label(size)} facts, p50 of ${runs} (time)`,
      value: then ? `${ms(then.took)} → ${ms(now.took)} ms` : `${ms(now.took)} ms`,
      baseline: then ? `before (foundry-bm25/3): ${ms(then.took)} ms` : undefined,
      ratio: then ? now.took / then.took : undefined,
    })
    ctx.report({
      suite,
      figure: `the same, bytes allocated (heap + ArrayBuffers); snapshot ${kb(now.chars)}${then ? ` (was ${kb(then.chars)})` : ''}`,
      value: then ? `${kb(then.bytes)} → ${kb(now.bytes)}` : kb(now.bytes),
      baseline: then ? `before: ${kb(then.bytes)}` : undefined,
      ratio: then ? now.bytes / then.bytes : undefined,
    })
  }
}
