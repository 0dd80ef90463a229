import { Command } from 'commander'
import type { GlobalOptions } from '../context.js'
import { fail } from '../context.js'
import { findProjectRoot } from '@foundry/project/find'
import { resolve } from 'node:path'

/**
 * `marbles mcp`: the Marbles MCP server over stdio (seed 003). It takes the global `--source`,
 * `--state`, `--artifacts` and `--dry-run`, and a repeatable `--harness`. It does not tick schedules.
 */
export function mcpCommand(): Command {
  return new Command('mcp')
    .description('Serve the MCP tools list_config, dispatch_workflow, dispatch_agent, get_run and cancel_run over stdio (stdout carries MCP only)')
    .option('--harness <provider[=command]>', 'offer only this provider (repeatable), or set a CLI harness executable: claude-code=/path/to/claude', (value: string, all: string[] = []) => [...all, value])
    .action(async (options: { harness?: string[] }, command: Command) => {
      const global = command.optsWithGlobals<GlobalOptions & { harness?: string[] }>()
      const root = resolve(global.root ?? process.env.FOUNDRY_ROOT ?? findProjectRoot(process.cwd()) ?? process.cwd())
      const { serveMarblesStdio } = await import('../../mcp/stdio.js')
      try {
        await serveMarblesStdio({
          root,
          ...(global.source !== undefined && { source: global.source }),
          ...(global.state !== undefined && { state: global.state }),
          ...(global.artifacts !== undefined && { artifacts: global.artifacts }),
          ...(options.harness && { harness: options.harness }),
          ...(global.dryRun && { dryRun: true }),
          ...(process.env.MARBLES_KILL_GRACE_MS && { killGraceMs: Number(process.env.MARBLES_KILL_GRACE_MS) }),
        })
        process.exitCode = 0
      } catch (error) {
        fail(error, global.debug)
      }
    })
}
