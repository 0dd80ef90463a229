import { createKernel, memoryStorage, minisearchRetriever } from '@foundry/kernel'
import { seedFacts, syntheticFacts } from '../lib/corpus.js'
import type { Suite } from '../lib/context.js'
import { ms, sample } from '../lib/measure.js'

/** Kernel write and search latency on the reference (in-memory) storage; the baseline is the bare storage put and a bare MiniSearch query. */
export const kernelSuite: Suite = {
  name: 'kernel',
  about: 'memory_write and memory_search latency on memoryStorage at 1k and 10k facts',
  async run(ctx) {
    const sizes = ctx.quick ? [1000] : [1000, 10_000]
    for (const size of sizes) {
      const storage = memoryStorage()
      await seedFacts(ctx, storage, size)
      const kernel = createKernel({ storage, retriever: minisearchRetriever(), telemetry: { record: async () => {} } })
      await kernel.memory.search({ query: 'warm up the index' })
      const extra = syntheticFacts(ctx, size + 200).slice(size)
      const n = ctx.quick ? 50 : 200
      const write = await sample(n, (i) => kernel.memory.write(extra[i < 0 ? n - i : i] ?? extra[0]!), 0)
      const put = await sample(n, (i) => storage.put('meta', `bench/${i}`, 'x'), 0)
      ctx.report({ suite: 'kernel', figure: `memory_write p50 / p99 @${size / 1000}k (memoryStorage)`, value: `${ms(write.p50)} / ${ms(write.p99)} ms`, baseline: `bare put ${ms(put.p50)} ms` })
      const queries = extra.map((f) => f.title.split(' ').slice(0, 4).join(' '))
      const search = await sample(n, (i) => kernel.memory.search({ query: queries[Math.abs(i) % queries.length]! }))
      ctx.report({ suite: 'kernel', figure: `memory_search p50 / p99 @${size / 1000}k`, value: `${ms(search.p50)} / ${ms(search.p99)} ms` })
    }
  },
}
