import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { BenchContext, Suite } from '../lib/context.js'
import { syntheticFacts } from '../lib/corpus.js'
import { latency, ms } from '../lib/measure.js'
import { foundry, foundryBin, sdk, type PeerClient } from '../lib/peers-systems.js'

type Kind = 'sqlite' | 'fs'

/** The `foundry` server the Claude Code plugin's .mcp.json starts, in `checkout` (this one by default). */
function pluginServer(checkout = resolve(import.meta.dirname, '../..')): {
  args: string[]
  env?: Record<string, string>
} {
  const path = join(checkout, 'examples/claude-code-plugin/.mcp.json')
  const config = JSON.parse(readFileSync(path, 'utf8')) as {
    mcpServers: { foundry: { args: string[]; env?: Record<string, string> } }
  }
  return config.mcpServers.foundry
}

/**
 * The Node options the plugin runs its hooks with in `checkout` (this one by default): the arguments
 * between `node` and the script of its UserPromptSubmit command; none in a checkout whose hooks.json
 * gives none.
 */
export function pluginHookFlags(checkout = resolve(import.meta.dirname, '../..')): string[] {
  const path = join(checkout, 'examples/claude-code-plugin/hooks/hooks.json')
  const config = JSON.parse(readFileSync(path, 'utf8')) as {
    hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>
  }
  const command = config.hooks.UserPromptSubmit?.[0]?.hooks[0]?.command ?? ''
  return /^node((?: --[\w-]+(?:=\S+)?)*) "/.exec(command)?.[1]?.trim().split(' ').filter(Boolean) ?? []
}

/** The Node options the plugin starts `foundry mcp` with: every argument before the script. */
export function pluginFlags(): string[] {
  const { args } = pluginServer()
  return args.slice(
    0,
    args.findIndex((arg) => /foundry\.c?js$/.test(arg)),
  )
}

/** The environment the plugin gives `foundry mcp` in `checkout` (its `env`; none when it sets none). */
export function pluginEnv(checkout?: string): Record<string, string> {
  return pluginServer(checkout).env ?? {}
}

/** VmRSS and VmHWM of a process, in MB. */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN)
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 }
}

/** `foundry mcp` on a new project, started with `flags`, writes `facts` itself (one `memory_write` at a time); its RSS then. */
async function serverAfterWrites(
  ctx: BenchContext,
  kind: Kind,
  flags: string[],
  name: string,
  facts: ReturnType<typeof syntheticFacts>,
  extraEnv: Record<string, string> = {},
): Promise<{ rss: number; hwm: number; p50: number; p99: number; seconds: number }> {
  const { getDefaultEnvironment, Client, StdioClientTransport } = sdk()
  const env = getDefaultEnvironment()
  const system = foundry(kind, env, await foundryBin(ctx.scratch))
  const dir = join(ctx.scratch, `server-rss-${kind}-${name}`)
  system.prepare(dir)
  const launch = system.launch(dir)
  const transport = new StdioClientTransport({
    ...launch,
    args: [...flags, ...launch.args],
    env: { ...launch.env, ...extraEnv },
    stderr: 'ignore',
  })
  const client: PeerClient = new Client({ name: 'foundry-bench-rss', version: '1.0.0' })
  await client.connect(transport)
  const took: number[] = []
  const start = performance.now()
  for (const fact of facts) {
    const t = performance.now()
    const result = await client.callTool({ name: 'memory_write', arguments: { ...fact } }, undefined, {
      timeout: 600_000,
    })
    took.push(performance.now() - t)
    if (result.isError) throw new Error(`foundry mcp (${kind}) refused a write: ${JSON.stringify(result.content)}`)
  }
  const seconds = (performance.now() - start) / 1000
  const memory = memoryOf(transport.pid!)
  await client.close()
  const { p50, p99 } = latency(took)
  ctx.log(
    `  server-rss: ${kind} ${name} (${flags.join(' ') || 'no flags'}): ${facts.length} writes in ${ms(seconds)} s, p50 / p99 ${ms(p50)} / ${ms(p99)} ms: RSS ${memory.rss.toFixed(0)} MB (peak ${memory.hwm.toFixed(0)} MB)`,
  )
  return { ...memory, p50, p99, seconds }
}

/**
 * The resident memory of the `foundry mcp` process after it wrote 10k facts itself through MCP
 * (single `memory_write` calls, one at a time, on a new project), started as the Claude Code
 * plugin's .mcp.json starts it, beside the same server started by a bare `node` in the same run.
 */
export const serverRssSuite: Suite = {
  name: 'server-rss',
  about:
    'RSS of foundry mcp after writing 10k facts itself through MCP, started as the plugin starts it vs bare node (only with --only server-rss)',
  async run(ctx) {
    const size = ctx.quick ? 1000 : 10_000
    const facts = syntheticFacts(ctx, size)
    const flags = pluginFlags()
    for (const kind of ['sqlite', 'fs'] as const) {
      const plugin = await serverAfterWrites(ctx, kind, flags, 'plugin', facts, pluginEnv())
      const bare = await serverAfterWrites(ctx, kind, [], 'bare', facts)
      ctx.report({
        suite: 'server-rss',
        figure: `${kind}: RSS of \`foundry mcp\` after writing ${size / 1000}k facts itself through MCP, started as the plugin starts it (${flags.join(' ')}) (peak)`,
        value: `${plugin.rss.toFixed(0)} MB (${plugin.hwm.toFixed(0)} MB); writes p50 / p99 ${ms(plugin.p50)} / ${ms(plugin.p99)} ms`,
        baseline: `bare \`node\`: ${bare.rss.toFixed(0)} MB (${bare.hwm.toFixed(0)} MB); p50 / p99 ${ms(bare.p50)} / ${ms(bare.p99)} ms`,
        ratio: plugin.rss / bare.rss,
        target: '≤ 120 MB',
        met: plugin.rss <= 120,
      })
    }
  },
}
