import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fsStorage } from '@foundry/adapter-fs'
import { sqliteStorage } from '@foundry/adapter-sqlite'
import { createKernel, type Storage, type WriteOptions } from '@foundry/kernel'
import type { BenchContext, Suite } from '../lib/context.js'
import { seedFacts, syntheticFacts } from '../lib/corpus.js'
import { latency, ms } from '../lib/measure.js'
import { peerRecords } from '../lib/peers-records.js'
import { aiDevkit, foundry, foundryBin, sdk, type PeerClient, type PeerSystem } from '../lib/peers-systems.js'

type StorageKind = 'sqlite' | 'fs'

/**
 * The write path's batch and its tails. Seeding: 10k records through MCP, Foundry's `memory_write`
 * with `facts` (fs and SQLite) beside @ai-devkit/memory's fastest way (8 writes at a time), in one
 * run. Tails: single `memory.write` latency at 10k facts on each storage, each write cut into spans
 * (lock wait, puts by record, the section's own work, commit), the durability of derived records
 * as they were (`before`: INDEX.md durable) and as they are.
 */
export const batchSuite: Suite = {
  name: 'batch',
  about:
    'seeding 10k records through MCP (memory_write with facts) vs ai-devkit in the same run; single-write p50/p99 at 10k on fs and SQLite, with spans (only with --only batch)',
  async run(ctx) {
    await writeTails(ctx)
    await seeding(ctx)
  },
}

/** Seeding through each server's MCP session, one system after another, the same records. */
async function seeding(ctx: BenchContext): Promise<void> {
  const size = ctx.quick ? 1000 : 10_000
  const { getDefaultEnvironment, Client, StdioClientTransport } = sdk()
  const env = getDefaultEnvironment()
  const bin = await foundryBin(ctx.scratch)
  const records = peerRecords(ctx, size)
  const systems: PeerSystem[] = [aiDevkit(env), foundry('fs', env, bin), foundry('sqlite', env, bin)]
  const took = new Map<string, number>()
  for (const system of systems) {
    const dir = join(ctx.scratch, `batch-seed-${system.name.replace(/\s+/g, '-')}`)
    system.prepare(dir)
    const client: PeerClient = new Client({ name: 'foundry-bench-batch', version: '1.0.0' })
    await client.connect(new StdioClientTransport({ ...system.launch(dir), stderr: 'ignore' }))
    const t = performance.now()
    await system.seed(client, records)
    took.set(system.name, performance.now() - t)
    await client.close()
    const kept = system.kept(
      dir,
      records.slice(-50).map((r) => r.title),
    )
    ctx.log(
      `  batch: ${system.name} seeded ${size} records in ${ms(took.get(system.name)! / 1000)} s (${system.seedHow}); ${kept}/50 of the last kept`,
    )
  }
  const devkit = took.get('ai-devkit')!
  for (const kind of ['fs', 'sqlite'] as const) {
    const mine = took.get(`Foundry ${kind}`)!
    ctx.report({
      suite: 'batch',
      figure: `seeding ${size / 1000}k records through MCP, Foundry ${kind} (memory_write with facts, 500 a call)`,
      value: `${ms(mine / 1000)} s`,
      baseline: `ai-devkit ${ms(devkit / 1000)} s (8 writes at a time)`,
      ratio: mine / devkit,
      target: '≤ 2× ai-devkit',
      met: mine <= 2 * devkit,
    })
  }
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
    put(collection, key, value, options?: WriteOptions) {
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
    const runs = {
      before: [] as Array<{ total: number; spans: Spans }>,
      after: [] as Array<{ total: number; spans: Spans }>,
    }
    for (let i = 0; i < 2 * n; i++) {
      const which = i % 2 === 0 ? 'before' : 'after'
      current = new Map()
      const t = performance.now()
      await kernels[which].memory.write(extra[next++]!)
      runs[which].push({ total: performance.now() - t, spans: current })
    }
    for (const kernel of Object.values(kernels)) await kernel.close()
    for (const which of ['before', 'after'] as const) {
      const all = runs[which]
      const { p50, p99 } = latency(all.map((r) => r.total))
      const tail = all.filter((r) => r.total >= p99)
      const target = kind === 'sqlite' ? 20 : 40
      ctx.report({
        suite: 'batch',
        figure: `memory_write p50 / p99 @${size / 1000}k, ${kind}, ${which === 'before' ? 'INDEX.md durable (as before)' : 'INDEX.md relaxed'}`,
        value: `${ms(p50)} / ${ms(p99)} ms`,
        ...(which === 'after' && { target: `≤ ${target} ms p99`, met: p99 <= target }),
      })
      ctx.log(`  batch: ${kind} ${which}: mean spans of all writes: ${spanLine(all.map((r) => r.spans))}`)
      ctx.log(
        `  batch: ${kind} ${which}: mean spans of the slowest 1% (${tail.length}): ${spanLine(tail.map((r) => r.spans))}`,
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
