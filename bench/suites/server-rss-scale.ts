import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { BenchContext, Suite } from '../lib/context.js'
import { syntheticFacts } from '../lib/corpus.js'
import { latency, ms } from '../lib/measure.js'
import { foundry, foundryBin, sdk, type PeerClient } from '../lib/peers-systems.js'
import { seedBatch, seededCopy } from '../lib/seed-batch.js'
import { memoryOf, pluginEnv, pluginFlags } from './server-rss.js'

type Kind = 'sqlite' | 'fs'
type Facts = ReturnType<typeof syntheticFacts>
/** A server measured: its label, its bin, the environment added to its process. */
type Leg = [label: string, bin: string, env: Record<string, string>]

const TIMEOUT = { timeout: 1_800_000 }

/** A `foundry mcp` on `dir`, started with `flags` before the bin's arguments and `env` added to its environment. */
async function connect(kind: Kind, dir: string, flags: string[], bin: string, env: Record<string, string>) {
  const { getDefaultEnvironment, Client, StdioClientTransport } = sdk()
  const launch = foundry(kind, getDefaultEnvironment(), bin).launch(dir)
  const transport = new StdioClientTransport({
    ...launch,
    args: [...flags, ...launch.args],
    env: { ...launch.env, ...env },
    stderr: 'ignore',
  })
  const client: PeerClient = new Client({ name: 'foundry-bench-rss-scale', version: '1.0.0' })
  await client.connect(transport)
  return { client, pid: transport.pid! }
}

async function call(client: PeerClient, name: string, args: Record<string, unknown>): Promise<void> {
  const result = await client.callTool({ name, arguments: args }, undefined, TIMEOUT)
  if (result.isError) throw new Error(`foundry mcp refused ${name}: ${JSON.stringify(result.content)}`)
}

/**
 * A new server started as the plugin starts it (the bin at `bin`), on a copy of the project seeded
 * with `size` facts by the batch path, writes `after` more facts itself (one `memory_write` at a time)
 * and answers `queries` (`memory_search`, one at a time): its RSS then.
 */
async function afterSeed(
  ctx: BenchContext,
  kind: Kind,
  facts: Facts,
  size: number,
  after: number,
  queries: string[],
  [label, bin, env]: Leg,
) {
  const dir = join(ctx.scratch, `server-rss-scale-${kind}-${size}-${label}`)
  const seed = await seededCopy(`server-rss-scale-${kind}-${size}`, dir, (into) =>
    seedBatch(into, facts.slice(0, size), (root) => foundry(kind, sdk().getDefaultEnvironment(), bin).prepare(root)),
  )
  const rebuild = await settle(kind, dir, bin, env, facts[0]!, queries[0]!)
  const server = await connect(kind, dir, pluginFlags(), bin, env)
  const writes: number[] = []
  for (const fact of facts.slice(size, size + after)) {
    const t = performance.now()
    await call(server.client, 'memory_write', { ...fact })
    writes.push(performance.now() - t)
  }
  const searches: number[] = []
  for (const query of queries) {
    const t = performance.now()
    await call(server.client, 'memory_search', { query })
    searches.push(performance.now() - t)
  }
  const memory = memoryOf(server.pid)
  await server.client.close()
  rmSync(dir, { recursive: true, force: true })
  const write = latency(writes)
  const search = latency(searches)
  ctx.log(
    `  server-rss-scale: ${label} ${kind} @${size}: ${seed.reused ? 'seed reused' : `seeded in ${ms(seed.seconds)} s`}; the copy settled in ${ms(rebuild.ms / 1000)} s (peak ${rebuild.hwm.toFixed(0)} MB); ${after} writes p50 / p99 ${ms(write.p50)} / ${ms(write.p99)} ms, ${queries.length} searches p50 / p99 ${ms(search.p50)} / ${ms(search.p99)} ms: RSS ${memory.rss.toFixed(0)} MB (peak ${memory.hwm.toFixed(0)} MB)`,
  )
  return { ...memory, write, search, rebuild }
}

/**
 * The copy settled by a server of its own, as a project moved or restored is: its first write (a
 * duplicate: nothing stored) and first search. On the folder storage a copy's revision is new (the
 * journal's identity is part of it), so this server rebuilds the catalog and the retriever from a
 * full read and keeps them; on SQLite the revision lives in the database and nothing is rebuilt.
 * Its time, and its peak RSS.
 */
async function settle(
  kind: Kind,
  dir: string,
  bin: string,
  env: Record<string, string>,
  known: Facts[number],
  query: string,
) {
  const t = performance.now()
  const server = await connect(kind, dir, pluginFlags(), bin, env)
  await call(server.client, 'memory_write', { ...known })
  await call(server.client, 'memory_search', { query })
  const { hwm } = memoryOf(server.pid)
  await server.client.close()
  return { ms: performance.now() - t, hwm }
}

/** The storages measured: both, or those `FOUNDRY_BENCH_STORAGE` names (`sqlite`: the fs seed of 100k facts takes more than half an hour on a slow host). */
function storages(): Kind[] {
  const asked = process.env.FOUNDRY_BENCH_STORAGE?.split(',').map((s) => s.trim())
  const known: Kind[] = ['sqlite', 'fs']
  if (!asked) return known
  const unknown = asked.filter((s) => !known.includes(s as Kind))
  if (unknown.length)
    throw new Error(`FOUNDRY_BENCH_STORAGE names ${unknown.join(', ')}: use sqlite, fs or both (sqlite,fs)`)
  return known.filter((kind) => asked.includes(kind))
}

/**
 * How the resident memory of `foundry mcp` grows with the project: the server's RSS after it wrote
 * 1k facts itself and answered 200 searches on a project seeded with 100k facts by the batch path,
 * against the same on 10k, started as the Claude Code plugin starts it. The seeds are written once
 * in this process (the kernel's `writeMany`, 500 a call) and kept between runs (`seededCopy`); each
 * server runs on a copy, once a first server settled it (`settle`: measured on its own row). With `--before DIR`, that build's server is measured on the same copies.
 */
export const serverRssScaleSuite: Suite = {
  name: 'server-rss-scale',
  about:
    'RSS of foundry mcp at 100k facts vs 10k (seeded once by the batch path in process and kept between runs, then 1k writes and 200 searches of its own on a copy a first server settled; --before DIR measures that build beside; FOUNDRY_BENCH_STORAGE=sqlite or fs measures one storage; only with --only server-rss-scale, long)',
  async run(ctx) {
    const [small, large, after, searches] = ctx.quick ? [1000, 10_000, 100, 20] : [10_000, 100_000, 1000, 200]
    const facts = syntheticFacts(ctx, large + after)
    // Queries: the opening words of titles spread over the whole project.
    const queries = Array.from({ length: searches }, (_, i) =>
      facts[Math.floor((i * large) / searches)]!.title.split(/\s+/).slice(0, 5).join(' '),
    )
    const own = await foundryBin(ctx.scratch)
    const env = pluginEnv()
    const bins: Leg[] = [['this build', own, env]]
    // The plugin's environment measured against none, in the same run.
    if (Object.keys(env).length) bins.push(['this build, no env', own, {}])
    if (ctx.before) {
      const bin = join(ctx.before, 'packages/foundry/dist/bin/foundry.js')
      if (!existsSync(bin)) throw new Error(`${bin} is not built: run npm run setup in ${ctx.before}`)
      bins.unshift(['before', bin, pluginEnv(ctx.before)])
    }
    for (const kind of storages())
      for (const leg of bins) {
        const label = leg[0]
        const base = await afterSeed(ctx, kind, facts, small, after, queries, leg)
        const grown = await afterSeed(ctx, kind, facts, large, after, queries, leg)
        const shape = `${after / 1000}k writes and ${searches} searches of its own`
        ctx.report({
          suite: 'server-rss-scale',
          figure: `${kind}${bins.length > 1 ? ` (${label})` : ''}: a copy of the ${large / 1000}k project settled by its first server (first write and search; peak RSS)`,
          value: `${ms(grown.rebuild.ms / 1000)} s (${grown.rebuild.hwm.toFixed(0)} MB)`,
          baseline: `the same at ${small / 1000}k: ${ms(base.rebuild.ms / 1000)} s (${base.rebuild.hwm.toFixed(0)} MB)`,
          ratio: grown.rebuild.ms / base.rebuild.ms,
        })
        ctx.report({
          suite: 'server-rss-scale',
          figure: `${kind}${bins.length > 1 ? ` (${label})` : ''}: RSS of \`foundry mcp\` (${pluginFlags().join(' ')}) on ${large / 1000}k facts seeded by the batch path, after ${shape} (peak)`,
          value: `${grown.rss.toFixed(0)} MB (${grown.hwm.toFixed(0)} MB); writes p50 / p99 ${ms(grown.write.p50)} / ${ms(grown.write.p99)} ms, searches p50 / p99 ${ms(grown.search.p50)} / ${ms(grown.search.p99)} ms`,
          baseline: `the same on ${small / 1000}k: ${base.rss.toFixed(0)} MB (${base.hwm.toFixed(0)} MB); writes p50 / p99 ${ms(base.write.p50)} / ${ms(base.write.p99)} ms, searches p50 / p99 ${ms(base.search.p50)} / ${ms(base.search.p99)} ms`,
          ratio: grown.rss / base.rss,
          target: '≤ 1.3×',
          met: grown.rss <= 1.3 * base.rss,
        })
      }
  },
}
