import { mkdirSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { fsStorage } from '@foundry/adapter-fs'
import { sqliteStorage } from '@foundry/adapter-sqlite'
import { createKernel, type Storage } from '@foundry/kernel'
import type { BenchContext, Suite } from '../lib/context.js'
import { seedFacts, syntheticFacts } from '../lib/corpus.js'
import { latency, ms } from '../lib/measure.js'

type StorageKind = 'sqlite' | 'fs'

/**
 * The write tails: single `memory.write` latency at 10k facts on each storage, each write cut into
 * spans (lock wait, puts by record, the section's own work, commit), the durability of derived
 * records as they were (`before`: INDEX.md durable) and as they are. The load average before and
 * after each storage's writes is logged: a p99 means little without it.
 */
export const tailsSuite: Suite = {
  name: 'tails',
  about:
    'single memory_write p50/p99 at 10k facts on SQLite and fs, with spans and the load average (only with --only tails)',
  run: (ctx) => writeTails(ctx),
}

/** Where one write's time goes: milliseconds by span name. */
type Spans = Map<string, number>

/**
 * `storage` with every call the write path makes timed into `spans` (a bench-only wrapper: the
 * product is not instrumented). `durableIndex` puts INDEX.md durably whatever the kernel asks: the
 * write path as it was before derived records were relaxed.
 */
function timed(storage: Storage, spans: () => Spans, durableIndex: boolean): Storage {
  const add = (name: string, since: number) => spans().set(name, (spans().get(name) ?? 0) + performance.now() - since)
  const record = (collection: string, key: string) =>
    collection === 'meta' ? `put meta ${key.split('/')[0]}` : `put ${collection}`
  const around = async <T>(name: string, fn: () => Promise<T>) => {
    const t = performance.now()
    try {
      return await fn()
    } finally {
      add(name, t)
    }
  }
  return {
    ...storage,
    put(collection, key, value, options?: Parameters<Storage['put']>[3]) {
      const forced =
        durableIndex && collection === 'meta' && key === 'index' ? { durability: 'durable' as const } : options
      return around(record(collection, key), () => storage.put(collection, key, value, forced))
    },
    putMany: (collection, entries, options) =>
      around(`putMany ${collection}`, () => storage.putMany(collection, entries, options)),
    get: (collection, key) => around(`get ${collection}`, () => storage.get(collection, key)),
    list: (collection, options) => around(`list ${collection}`, () => storage.list(collection, options)),
    revision: (collection) => around('revision', () => storage.revision(collection)),
    appendEvent: (event) => around('event', () => storage.appendEvent(event)),
    async exclusive(fn) {
      const called = performance.now()
      let left = 0
      const value = await storage.exclusive(async () => {
        add('lock wait', called)
        const entered = performance.now()
        try {
          return await fn()
        } finally {
          left = performance.now()
          add('section', entered)
        }
      })
      add('commit and unlock', left)
      return value
    },
  }
}

/** Single writes at 10k facts on each storage: p50/p99 and the spans of the slowest 1%, before and after. */
async function writeTails(ctx: BenchContext): Promise<void> {
  const size = ctx.quick ? 1000 : 10_000
  const n = ctx.quick ? 60 : 300
  const extra = syntheticFacts(ctx, size + 2 * n + 10).slice(size)
  for (const kind of ['sqlite', 'fs'] as const) {
    let next = 0
    const seeded = async (which: string) => {
      const dir = join(ctx.scratch, `batch-tails-${kind}-${which}`)
      mkdirSync(dir, { recursive: true })
      const seeder = open(kind, dir, false)
      await seeder.exclusive(() => seedFacts(ctx, seeder, size))
      await seeder.close?.()
      return dir
    }
    // Before and after on stores of their own, alternating write by write, so a busy moment of the machine weighs on both.
    let current: Spans = new Map()
    const kernels = {
      before: createKernel({ storage: timed(open(kind, await seeded('before')), () => current, true) }),
      after: createKernel({ storage: timed(open(kind, await seeded('after')), () => current, false) }),
    }
    for (const kernel of Object.values(kernels)) await kernel.memory.search({ query: 'warm up the index' })
    const loadBefore = loadavg()[0] ?? 0
    const runs = {
      before: [] as Array<{ total: number; cpu: number; spans: Spans }>,
      after: [] as Array<{ total: number; cpu: number; spans: Spans }>,
    }
    for (let i = 0; i < 2 * n; i++) {
      const which = i % 2 === 0 ? 'before' : 'after'
      current = new Map()
      const t = performance.now()
      const cpu = process.cpuUsage()
      await kernels[which].memory.write(extra[next++]!)
      const used = process.cpuUsage(cpu)
      runs[which].push({ total: performance.now() - t, cpu: (used.user + used.system) / 1000, spans: current })
    }
    for (const kernel of Object.values(kernels)) await kernel.close()
    const load = `load ${loadBefore.toFixed(1)} → ${(loadavg()[0] ?? 0).toFixed(1)}`
    ctx.log(`  tails: ${kind}: ${2 * n} writes at ${load}`)
    for (const which of ['before', 'after'] as const) {
      const all = runs[which]
      const { p50, p99 } = latency(all.map((r) => r.total))
      const tail = all.filter((r) => r.total >= p99)
      const target = kind === 'sqlite' ? 20 : 40
      ctx.report({
        suite: 'tails',
        figure: `memory_write p50 / p99 @${size / 1000}k, ${kind}, ${which === 'before' ? 'INDEX.md durable (as before)' : 'INDEX.md relaxed'}`,
        // The process's CPU time a write (its fsyncs' threads included): what a busy machine inflates least.
        value: `${ms(p50)} / ${ms(p99)} ms (${load}); CPU ${ms(latency(all.map((r) => r.cpu)).p50)} / ${ms(latency(all.map((r) => r.cpu)).p99)} ms`,
        ...(which === 'after' && { target: `≤ ${target} ms p99`, met: p99 <= target }),
      })
      ctx.log(`  tails: ${kind} ${which}: mean spans of all writes: ${spanLine(all.map((r) => r.spans))}`)
      ctx.log(
        `  tails: ${kind} ${which}: mean spans of the slowest 1% (${tail.length}): ${spanLine(tail.map((r) => r.spans))}`,
      )
    }
  }
}

function open(kind: StorageKind, dir: string, durable = true): Storage {
  return kind === 'sqlite' ? sqliteStorage({ path: join(dir, 'foundry.db') }) : fsStorage({ root: dir, durable })
}

/** Each span's mean over `runs`, the largest first; `section` is the whole exclusive section, the puts inside it included. */
function spanLine(runs: Spans[]): string {
  const totals = new Map<string, number>()
  for (const spans of runs) for (const [name, value] of spans) totals.set(name, (totals.get(name) ?? 0) + value)
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .map(([name, total]) => `${name} ${ms(total / runs.length)}`)
    .join(', ')
}
