import { Command } from 'commander'
import type { GlobalOptions } from '../context.js'
import { fail, findRoot } from '../context.js'
import { hostOptions, serveMcpStdio } from '../mcp-stdio.js'

interface McpOptions {
  harness?: string[]
  work?: boolean
  http?: boolean
  host?: string
  port?: string
  allowHost?: string[]
}

/**
 * `marbles mcp`: the Marbles MCP server over stdio. It takes the global `--source`,
 * `--state`, `--artifacts` and `--dry-run`, a repeatable `--harness`, and `--no-work` (on a state with a
 * job queue: dispatch only). It does not tick schedules.
 */
export function mcpCommand(): Command {
  return new Command('mcp')
    .description(
      'Serve the MCP tools list_config, dispatch_workflow, dispatch_agent, get_run and cancel_run over stdio (stdout carries MCP only)',
    )
    .option(
      '--harness <provider[=command]>',
      'offer only this provider (repeatable), or set a CLI harness executable: claude-code=/path/to/claude',
      (value: string, all: string[] = []) => [...all, value],
    )
    .option(
      '--no-work',
      'on PostgreSQL: only dispatch through the job queue, for marbles worker or serve to execute (default: this server is also a worker of it)',
    )
    .option(
      '--http',
      'serve over Streamable HTTP instead, many clients at once (team mode; tokens from foundry token create or FOUNDRY_TOKENS; without them, the local token the server names at start)',
    )
    .option('--host <address>', 'with --http: the address to bind (default 127.0.0.1; any other needs a token)')
    .option('--port <n>', 'with --http: the port (default 7412; 0 picks a free one)')
    .option(
      '--allow-host <name>',
      'with --http: another Host name clients may use (repeatable)',
      (value: string, all: string[] = []) => [...all, value],
    )
    .action(async (options: McpOptions, command: Command) => {
      const global = command.optsWithGlobals<GlobalOptions & { harness?: string[] }>()
      if (options.http) return serveHttp(findRoot(global) ?? process.cwd(), global, options)
      await serveMcpStdio(global, options)
    })
}

/** `marbles mcp --http`: the team server (mcp/http.ts); a failure to start is one line and exit 1. */
async function serveHttp(root: string, global: GlobalOptions, options: McpOptions): Promise<void> {
  try {
    const port = options.port === undefined ? 7412 : Number(options.port)
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new Error(`--port must be a whole number from 0 to 65535, got ${options.port}`)
    const [{ serveMarblesHttp }, { localTokenPath }] = await Promise.all([
      import('../../mcp/http.js'),
      import('@foundry/server/runtime'),
    ])
    await serveMarblesHttp({
      ...hostOptions(root, global, options),
      console: true,
      localToken: localTokenPath(),
      port,
      ...(options.host && { host: options.host }),
      ...(options.allowHost && { hostnames: options.allowHost }),
    })
    process.exit(0)
  } catch (error) {
    fail(error, global.debug)
  }
}
