import { join } from 'node:path'
import { fsStorage } from '@foundry/adapter-fs'
import { bm25Retriever, createKernel, type FactInput } from '@foundry/kernel'
import { ingest } from '@foundry/ingest'
import { requireData, type BenchContext, type Suite } from '../lib/context.js'
import { KNOWN_ANSWERS } from '../lib/peers-records.js'

/**
 * `foundry ingest` on the real ADRs of eval-data/adr (read in place): facts written, the supersede
 * chains the ADRs state, what was shelved, and how many of the 50 known-answer ADR questions the
 * ingested facts answer at rank 1. Its time against writing the same facts with memory.write alone
 * (the baseline, same run, same durable folder storage).
 */
export const ingestSuite: Suite = {
  name: 'ingest',
  about:
    'foundry ingest on eval-data/adr: facts, chains, the 50 ADR questions at rank 1 from ingested facts alone, time vs plain writes',
  async run(ctx: BenchContext) {
    const dir = requireData(ctx, 'adr')
    const open = (name: string) =>
      createKernel({ storage: fsStorage({ root: join(ctx.scratch, name) }), retriever: bm25Retriever() })

    const kernel = open('ingest')
    let started = performance.now()
    const report = await ingest(kernel, [dir], { cwd: ctx.data })
    const ingestMs = performance.now() - started
    const shelved = report.steps.filter((s) => s.shelved).length
    const again = performance.now()
    const second = await ingest(kernel, [dir], { cwd: ctx.data })
    const secondMs = performance.now() - again

    // The baseline: the same inputs written one by one, without reading or planning anything.
    const inputs: FactInput[] = []
    for (const step of report.steps)
      if (step.id) {
        const fact = await kernel.memory.get(step.id)
        inputs.push({
          title: fact.title,
          body: fact.body,
          type: fact.type,
          tags: fact.tags,
          source: fact.source,
          confidence: fact.confidence,
          supersede: false,
        })
      }
    const plain = open('plain')
    started = performance.now()
    for (const input of inputs) await plain.memory.write(input)
    const plainMs = performance.now() - started
    await plain.close()

    // Rank 1: the top hit is the fact ingested from the ADR that answers the question.
    const byFile = new Map(report.steps.map((s) => [s.file.replace(/\\/g, '/').replace(/^adr\//, ''), s.id]))
    let first = 0
    const misses: string[] = []
    for (const { question, adr } of KNOWN_ANSWERS) {
      const { hits } = await kernel.memory.search({ query: question, limit: 5 })
      if (hits[0] && hits[0].fact.id === byFile.get(adr)) first++
      else misses.push(adr)
    }
    await kernel.close()
    ctx.log(`  ingest: rank-1 misses: ${misses.join(', ')}`)

    ctx.report({
      suite: 'ingest',
      figure: 'eval-data/adr: files read / facts written / chains / shelved (rejected, deprecated)',
      value: `${report.files.length} / ${report.created} / ${report.chains} / ${shelved}`,
      ...(report.problems.length && { baseline: `${report.problems.length} problems` }),
    })
    ctx.report({
      suite: 'ingest',
      figure: '50 ADR questions answered at rank 1 from ingested facts alone',
      value: `${first}/${KNOWN_ANSWERS.length}`,
    })
    ctx.report({
      suite: 'ingest',
      figure: 'ingest time (fs, durable) / second run (nothing to write)',
      value: `${ingestMs.toFixed(0)} / ${secondMs.toFixed(0)} ms (second run wrote ${second.created})`,
      baseline: `the same facts through memory.write alone ${plainMs.toFixed(0)} ms`,
      ratio: ingestMs / plainMs,
    })
  },
}
