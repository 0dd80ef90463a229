import { join } from 'node:path'
import type { BenchContext, Suite } from '../lib/context.js'
import { ms } from '../lib/measure.js'
import { peerRecords } from '../lib/peers-records.js'
import { aiDevkit, foundry, foundryBin, sdk, type PeerClient, type PeerSystem } from '../lib/peers-systems.js'

/**
 * The write path's batch: 10k records through MCP, Foundry's `memory_write` with `facts` (fs and
 * SQLite) beside @ai-devkit/memory's fastest way (8 writes at a time), in one run. Single writes'
 * tails are the `tails` suite.
 */
export const batchSuite: Suite = {
  name: 'batch',
  about:
    'seeding 10k records through MCP (memory_write with facts) vs ai-devkit in the same run (only with --only batch)',
  run: (ctx) => seeding(ctx),
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
