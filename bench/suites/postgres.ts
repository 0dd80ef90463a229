import { spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fsStorage } from '@foundry/adapter-fs'
import { postgresRetriever, postgresStorage } from '@foundry/adapter-postgres'
import { createDatabase, startTestDatabase } from '@foundry/adapter-postgres/testing'
import { ftsRetriever, sqliteStorage } from '@foundry/adapter-sqlite'
import { createKernel, memoryStorage, type Retriever, type Storage } from '@foundry/kernel'
import pg from 'pg'
import type { BenchContext, Suite } from '../lib/context.js'
import { seedFacts, syntheticFacts } from '../lib/corpus.js'
import { latency, ms, sample, type Latency } from '../lib/measure.js'

const SUITE = 'postgres'
type Kind = 'postgres' | 'sqlite' | 'fs'
const KINDS: readonly Kind[] = ['postgres', 'sqlite', 'fs']
/** Where each store lives: a database URL for Postgres, a folder for the others. */
type Target = { kind: Kind; at: string }

const size = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n))

function openStorage({ kind, at }: Target, options: { revisionCache?: boolean } = {}): Promise<Storage> | Storage {
  if (kind === 'postgres') return postgresStorage({ url: at, ...options })
  return kind === 'sqlite' ? sqliteStorage({ path: join(at, 'foundry.db') }) : fsStorage({ root: at })
}

/** Each storage with its own keyword retriever: Postgres full text (issue 16), FTS5 in the SQLite file, FTS5 beside the folder layout. */
function openRetriever({ kind, at }: Target): Retriever {
  if (kind === 'postgres') return postgresRetriever({ url: at })
  return ftsRetriever({ path: kind === 'sqlite' ? join(at, 'foundry.db') : join(at, '.foundry', 'cache', 'fts.db') })
}
const retrieverName = (kind: Kind) => (kind === 'postgres' ? 'postgresRetriever' : 'FTS5')

/**
 * `n` synthetic facts into the store, untimed setup: Postgres by one bulk INSERT … SELECT unnest()
 * per 10 000 rows (then one put through the storage, so its revision moves), SQLite in one
 * transaction, the folder layout without fsync.
 */
export async function seed(ctx: BenchContext, target: Target, n: number): Promise<number> {
  const t = performance.now()
  if (target.kind === 'postgres') {
    await (await postgresStorage({ url: target.at })).close?.() // creates the tables
    const staged = memoryStorage()
    await seedFacts(ctx, staged, n)
    const facts = await staged.list('facts')
    const client = new pg.Client({ connectionString: target.at })
    await client.connect()
    for (let i = 0; i < facts.length - 1; i += 10_000) {
      const batch = facts.slice(i, Math.min(i + 10_000, facts.length - 1))
      await client.query(
        "INSERT INTO foundry_records (collection, key, value) SELECT 'facts', k, v FROM unnest($1::text[], $2::text[]) AS t(k, v)",
        [batch.map((f) => f.id), batch.map((f) => JSON.stringify(f))],
      )
    }
    await client.query('ANALYZE')
    await client.end()
    const storage = await postgresStorage({ url: target.at })
    const last = facts[facts.length - 1]!
    await storage.put('facts', last.id, last)
    await storage.close?.()
  } else {
    const storage =
      target.kind === 'sqlite'
        ? sqliteStorage({ path: join(target.at, 'foundry.db') })
        : fsStorage({ root: target.at, durable: false })
    await storage.exclusive(() => seedFacts(ctx, storage, n))
    await storage.close?.()
  }
  return performance.now() - t
}

interface Measured {
  write: Latency
  search: Latency
  build: number
}

/**
 * memory_write and memory_search through one kernel per storage (default telemetry: an event per
 * call), after each kernel's first search built its index and its first write loaded every fact.
 * The samples are interleaved (one write on each storage in turn, the order rotating), so a change
 * in the machine's load during the run weighs on all three alike: the ratios are what to read.
 */
async function measureAll(ctx: BenchContext, targets: Target[], n: number): Promise<Map<Kind, Measured>> {
  const samples = ctx.quick ? 30 : n >= 100_000 ? 100 : 200
  const extra = syntheticFacts(ctx, n + samples + 10).slice(n)
  const queries = extra.map((f) => f.title.split(' ').slice(0, 4).join(' '))
  const opened: Array<{
    kind: Kind
    kernel: ReturnType<typeof createKernel>
    build: number
    write: number[]
    search: number[]
  }> = []
  for (const target of targets) {
    const kernel = createKernel({ storage: await openStorage(target), retriever: openRetriever(target) })
    const t = performance.now()
    await kernel.memory.search({ query: 'warm up the index' })
    const build = performance.now() - t
    await kernel.memory.write(extra[samples]!) // the first write of a process loads every fact: not sampled
    opened.push({ kind: target.kind, kernel, build, write: [], search: [] })
  }
  const interleave = async (
    fn: (o: (typeof opened)[number], i: number) => Promise<unknown>,
    into: 'write' | 'search',
  ) => {
    for (let i = 0; i < samples; i++)
      for (let k = 0; k < opened.length; k++) {
        const o = opened[(i + k) % opened.length]!
        const t = performance.now()
        await fn(o, i)
        o[into].push(performance.now() - t)
      }
  }
  for (const o of opened) for (let i = 0; i < 5; i++) await o.kernel.memory.search({ query: queries[i]! })
  await interleave((o, i) => o.kernel.memory.write(extra[i]!), 'write')
  await interleave((o, i) => o.kernel.memory.search({ query: queries[i % queries.length]! }), 'search')
  const out = new Map<Kind, Measured>()
  for (const o of opened) {
    await o.kernel.close()
    out.set(o.kind, { write: latency(o.write), search: latency(o.search), build: o.build })
  }
  return out
}

/**
 * Steady-state write throughput of `processes` writer processes (bench/suites/postgres-writer.ts):
 * each opens the store and makes one untimed write, then all start writing back to back at once;
 * once every one has finished a write of its own (all are writing, start-up and first-write costs
 * behind them), the writes finished by any of them in the next `seconds` are counted. Writes a second.
 * `writer`: the writer script (another checkout's, to measure its build beside this one).
 */
export async function throughput(
  target: Target,
  processes: number,
  seconds: number,
  run: number,
  writer = join(import.meta.dirname, 'postgres-writer.ts'),
): Promise<number> {
  const children = Array.from({ length: processes }, (_, k) =>
    spawn(process.execPath, ['--import', 'tsx', writer, target.kind, target.at, String(k), String(run)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  )
  let written = 0
  const writing = new Set<number>()
  let allWriting!: () => void
  const steady = new Promise<void>((resolve) => (allWriting = resolve))
  const lines = children.map((child, k) => {
    let err = ''
    child.stderr.on('data', (d) => (err += d))
    const waiters = new Map<string, () => void>()
    let rest = ''
    child.stdout.on('data', (d) => {
      rest += d
      for (let at = rest.indexOf('\n'); at >= 0; at = rest.indexOf('\n')) {
        const line = rest.slice(0, at)
        rest = rest.slice(at + 1)
        if (line === 'w') {
          written++
          if (writing.add(k).size === processes) allWriting()
        } else waiters.get(line)?.()
      }
    })
    const seen = (line: string) =>
      new Promise<void>((resolve, reject) => {
        waiters.set(line, resolve)
        child.on('close', (code) =>
          reject(new Error(`writer exited with ${code}: ${err.trim().split('\n').slice(-3).join(' ')}`)),
        )
      })
    return { ready: seen('ready'), done: seen('done') }
  })
  try {
    await Promise.all(lines.map((l) => l.ready))
    for (const child of children) child.stdin.write('go\n')
    await Promise.race([steady, Promise.all(lines.map((l) => l.done))])
    const [from, t] = [written, performance.now()]
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
    const rate = (written - from) / ((performance.now() - t) / 1000)
    for (const child of children) child.stdin.end('stop\n')
    await Promise.all(lines.map((l) => l.done))
    return rate
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill()
  }
}

/**
 * Storage "postgres" (issue 16) beside SQLite and the folder layout, in the same run, on a real
 * embedded PostgreSQL (FOUNDRY_TEST_DATABASE_URL points it at another), with fsync on as a
 * production server has it: memory_write and memory_search p50/p99 at 10k and 100k facts, each
 * storage with its own keyword retriever; write throughput of 1, 4 and 8 writer processes at 10k;
 * and revision() with and without the NOTIFY-kept cache.
 */
export const postgresSuite: Suite = {
  name: SUITE,
  about:
    'storage postgres beside sqlite and fs: write/search p50/p99 at 10k and 100k facts, write throughput with 1/4/8 processes, revision() cache',
  async run(ctx) {
    const server = await startTestDatabase({ fsync: true, log: () => undefined })
    const targetFor = async (kind: Kind, n: number, tag: string): Promise<Target> => {
      if (kind === 'postgres') return { kind, at: await createDatabase(server.url) }
      const at = join(ctx.scratch, `postgres-suite-${kind}-${size(n)}-${tag}`)
      mkdirSync(at, { recursive: true })
      return { kind, at }
    }
    try {
      const sizes = ctx.quick ? [1000] : [10_000, 100_000]
      for (const n of sizes) {
        const targets: Target[] = []
        for (const kind of KINDS) {
          const target = await targetFor(kind, n, 'latency')
          const seeded = await seed(ctx, target, n)
          ctx.log(`  seeded ${n} facts into ${kind} in ${ms(seeded)} ms`)
          targets.push(target)
        }
        const results = await measureAll(ctx, targets, n)
        const sqlite = results.get('sqlite')!
        for (const kind of KINDS) {
          const r = results.get(kind)!
          const label = `${kind} + ${retrieverName(kind)} @${size(n)}`
          const versus =
            kind === 'sqlite'
              ? {}
              : { baseline: `sqlite p50 ${ms(sqlite.write.p50)} ms`, ratio: r.write.p50 / sqlite.write.p50 }
          ctx.report({
            suite: SUITE,
            figure: `${label}: memory_write p50 / p99`,
            value: `${ms(r.write.p50)} / ${ms(r.write.p99)} ms`,
            ...versus,
          })
          ctx.report({
            suite: SUITE,
            figure: `${label}: memory_search p50 / p99`,
            value: `${ms(r.search.p50)} / ${ms(r.search.p99)} ms`,
            ...(kind === 'sqlite'
              ? {}
              : { baseline: `sqlite + FTS5 p50 ${ms(sqlite.search.p50)} ms`, ratio: r.search.p50 / sqlite.search.p50 }),
          })
          ctx.report({ suite: SUITE, figure: `${label}: first search (index build)`, value: `${ms(r.build)} ms` })
        }
      }

      // Throughput: a store of 10k facts (1k quick), then 1, 4 and 8 processes writing at once.
      const n = ctx.quick ? 1000 : 10_000
      const seconds = ctx.quick ? 3 : 15
      let run = 0
      const stores: Target[] = []
      for (const kind of KINDS) {
        const target = await targetFor(kind, n, 'throughput')
        await seed(ctx, target, n)
        stores.push(target)
      }
      // Each process count on each storage in turn, so the load of the moment weighs on all three.
      const rates = new Map<Kind, number[]>(KINDS.map((k) => [k, []]))
      for (const processes of [1, 4, 8])
        for (const target of stores) rates.get(target.kind)!.push(await throughput(target, processes, seconds, run++))
      for (const kind of KINDS) {
        const r = rates.get(kind)!
        ctx.report({
          suite: SUITE,
          figure: `${kind} @${size(n)}: memory_write throughput, 1 / 4 / 8 writer processes (steady state, ${seconds} s window)`,
          value: `${r.map((x) => x.toFixed(0)).join(' / ')} writes/s`,
          baseline: '1 process',
          ratio: r[2]! / r[0]!,
        })
      }

      // revision(): from the NOTIFY-kept cache, and from the database each time; and what a search gains.
      const target = await targetFor('postgres', n, 'revision')
      await seed(ctx, target, n)
      const samples = ctx.quick ? 200 : 2000
      const cached = await postgresStorage({ url: target.at })
      await new Promise<void>((resolve) => {
        const stop = cached.onChange!(() => (stop(), resolve()))
        void cached.put('meta', 'probe', 'x')
      })
      const direct = await postgresStorage({ url: target.at, revisionCache: false })
      const hit = await sample(samples, () => cached.revision('facts'))
      const miss = await sample(samples, () => direct.revision('facts'))
      ctx.report({
        suite: SUITE,
        figure: 'postgres revision() p50 / p99: cache kept by NOTIFY',
        value: `${ms(hit.p50)} / ${ms(hit.p99)} ms`,
        baseline: `no cache ${ms(miss.p50)} / ${ms(miss.p99)} ms`,
        ratio: hit.p50 / miss.p50,
      })
      const queries = syntheticFacts(ctx, 200).map((f) => f.title.split(' ').slice(0, 4).join(' '))
      // Two kernels on the same database, one over each storage, searched in turn.
      const kernels = [
        createKernel({ storage: cached, retriever: openRetriever(target) }),
        createKernel({ storage: direct, retriever: openRetriever(target) }),
      ]
      for (const kernel of kernels) await kernel.memory.search({ query: 'warm up' })
      const times: [number[], number[]] = [[], []]
      for (let i = 0; i < (ctx.quick ? 30 : 200); i++)
        for (const k of [i % 2, 1 - (i % 2)]) {
          const t = performance.now()
          await kernels[k]!.memory.search({ query: queries[i % queries.length]! })
          times[k]!.push(performance.now() - t)
        }
      for (const kernel of kernels) await kernel.close()
      const withCache = latency(times[0])
      const without = latency(times[1])
      ctx.report({
        suite: SUITE,
        figure: `postgres @${size(n)}: memory_search p50 with the revision cache`,
        value: `${ms(withCache.p50)} ms`,
        baseline: `without ${ms(without.p50)} ms`,
        ratio: withCache.p50 / without.p50,
      })
    } finally {
      await server.stop()
    }
  },
}
