import { Command } from 'commander'
import { action } from '../context.js'

/** `foundry mcp`: the MCP server over stdio, for the project at the root. */
export function mcpCommand(): Command {
  return new Command('mcp')
    .description('Serve the foundry MCP server over stdio (what .mcp.json starts); stdout carries protocol messages only')
    .action(
      action(async (ctx) => {
        const { serveStdio } = await import('../../stdio.js')
        // The session's hooks are answered from this process too, unless the user turned hook servers off.
        await serveStdio({ open: ctx.project, hooks: process.env.FOUNDRY_HOOK_SERVER !== 'off' })
        // The client has gone and the project is closed: leave now, whatever handle (stdin, a lock timer) is still open.
        process.exit(0)
      }),
    )
}
