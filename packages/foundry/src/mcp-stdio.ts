import { type CommandContext, type GlobalOptions, runAction } from './cli/context.js'
import { startHookServer } from './hook-server.js'

/**
 * `foundry mcp` over stdio on the command's project: the server until the client goes, then exit 0.
 * The session's hooks are answered from this process too, unless `FOUNDRY_HOOK_SERVER=off`.
 */
export async function serveMcpStdio(ctx: CommandContext): Promise<void> {
  const beside = process.env.FOUNDRY_HOOK_SERVER === 'off' ? [] : [startHookServer]
  // The light entry: `initialize` is answered before the kernel and the SDK's Server load.
  const [{ serveStdio }, { zodJitless }] = await Promise.all([import('@foundry/mcp/stdio'), import('./zod-jitless.js')])
  zodJitless()
  await serveStdio({ open: ctx.project, beside, console: true })
  // The client has gone and the project is closed: leave now, whatever handle (stdin, a lock timer) is still open.
  process.exit(0)
}

/**
 * A plain `foundry mcp` command line (`plainMcpArgs`), served without commander: the entry of
 * `foundry-mcp.cjs`, the script the bin runs through V8's code cache, as the other commands run theirs.
 */
export function serveMcp(globals: GlobalOptions): Promise<void> {
  return runAction(globals, serveMcpStdio)
}
