import { join } from 'node:path'
import { sqliteStorage } from '@foundry/adapter-sqlite'
import { createKernel, memoryStorage } from '@foundry/kernel'
import { minisearchRetriever } from '@foundry/retriever-minisearch'
import { seedFacts, syntheticFacts } from '../lib/corpus.js'
import { snapshotOpen } from '../lib/snapshot-open.js'
import type { Suite } from '../lib/context.js'
import { ms, sample, type Latency } from '../lib/measure.js'

/**
 * Kernel write and search latency on the reference (in-memory) storage, so only the kernel is
 * measured. Baselines in the same run: the retriever's own search for the same queries (the
 * kernel's overhead), and the smallest size (how latency grows with memory).
 */
export const kernelSuite: Suite = {
  name: 'kernel',
  about:
    'memory_write and memory_search latency on memoryStorage at 1k and 10k facts; the first memory_write of a new process at 100k facts on SQLite; a bm25 snapshot opened + first search in a new process at 1k/10k/100k (beside the --before build)',
  async run(ctx) {
    const sizes = ctx.quick ? [1000] : [1000, 10_000]
    let first: { write: Latency; search: Latency } | undefined
    for (const size of sizes) {
      const storage = memoryStorage()
      await seedFacts(ctx, storage, size)
      const retriever = minisearchRetriever()
      const kernel = createKernel({ storage, retriever, telemetry: { record: async () => {} } })
      await kernel.memory.search({ query: 'warm up the index' })
      const n = ctx.quick ? 50 : 300
      const extra = syntheticFacts(ctx, size + n + 10).slice(size)
      const write = await sample(n, (i) => kernel.memory.write(extra[i < 0 ? n - i : i]!), 0)
      const queries = extra.map((f) => f.title.split(' ').slice(0, 4).join(' '))
      const search = await sample(n, (i) => kernel.memory.search({ query: queries[Math.abs(i) % queries.length]! }))
      const bare = await sample(n, (i) => retriever.search({ text: queries[Math.abs(i) % queries.length]!, limit: 20 }))
      first ??= { write, search }
      const label = `@${size / 1000}k`
      ctx.report({
        suite: 'kernel',
        figure: `memory_write p50 / p99 ${label}`,
        value: `${ms(write.p50)} / ${ms(write.p99)} ms`,
        baseline: `@1k p50 ${ms(first.write.p50)} ms`,
        ratio: write.p50 / first.write.p50,
      })
      ctx.report({
        suite: 'kernel',
        figure: `memory_search p50 / p99 ${label}`,
        value: `${ms(search.p50)} / ${ms(search.p99)} ms`,
        baseline: `retriever alone p50 ${ms(bare.p50)} ms`,
        ratio: search.p50 / bare.p50,
      })
    }
    if (!ctx.quick) await firstWrite(ctx, 100_000)
    await snapshotOpen(ctx, 'kernel', ctx.quick ? [1000] : [1000, 10_000, 100_000])
  },
}

/**
 * A new process's first memory_write on a SQLite store of `size` facts: it reads every fact once
 * (duplicates, the same-statement rule, INDEX.md, the next id); the baseline is that read alone
 * (`storage.list`), in the same run. The second write shows the steady state.
 */
async function firstWrite(ctx: Parameters<Suite['run']>[0], size: number): Promise<void> {
  const path = join(ctx.scratch, `kernel-${size}.db`)
  const seed = sqliteStorage({ path })
  await seed.exclusive(() => seedFacts(ctx, seed, size))
  await seed.close?.()
  const reader = sqliteStorage({ path })
  let start = performance.now()
  await reader.list('facts')
  const read = performance.now() - start
  await reader.close?.()
  const storage = sqliteStorage({ path })
  const kernel = createKernel({ storage, telemetry: { record: async () => {} } })
  const [first, second] = syntheticFacts(ctx, size + 2).slice(size)
  start = performance.now()
  await kernel.memory.write(first!)
  const firstMs = performance.now() - start
  start = performance.now()
  await kernel.memory.write(second!)
  const secondMs = performance.now() - start
  await kernel.close()
  ctx.report({
    suite: 'kernel',
    figure: `first memory_write of a new process @${size / 1000}k (SQLite) / the next one`,
    value: `${ms(firstMs)} / ${ms(secondMs)} ms`,
    baseline: `reading every fact (storage.list) ${ms(read)} ms`,
    ratio: firstMs / read,
  })
}
