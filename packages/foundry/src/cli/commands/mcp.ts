import { Command } from 'commander'
import { startHookServer } from '../../hook-server.js'
import { serveMcpStdio } from '../../mcp-stdio.js'
import { action } from '../context.js'

/** `foundry mcp`: the MCP server over stdio, for the project at the root; with `--http`, a team server over Streamable HTTP. */
export function mcpCommand(): Command {
  return new Command('mcp')
    .description(
      'Serve the foundry MCP server over stdio (what .mcp.json starts); stdout carries protocol messages only. With --http, the web console is at /ui/',
    )
    .option(
      '--http',
      'serve over Streamable HTTP instead, many clients at once (team mode; tokens from foundry token create or FOUNDRY_TOKENS; without them, the local token the server names at start)',
    )
    .option('--host <address>', 'with --http: the address to bind (default 127.0.0.1; any other needs a token)')
    .option('--port <n>', 'with --http: the port (default 7411; 0 picks a free one)')
    .option(
      '--allow-host <name>',
      'with --http: another Host name clients may use (repeatable)',
      (value: string, all: string[] = []) => [...all, value],
    )
    .action(
      action(async (ctx, options: { http?: boolean; host?: string; port?: string; allowHost?: string[] }) => {
        if (options.http) {
          // The session's hooks are answered from this process too, unless the user turned hook servers off.
          const beside = process.env.FOUNDRY_HOOK_SERVER === 'off' ? [] : [startHookServer]
          const [{ serveFoundryHttp }, { hookRoute }, { consoleRoute, CONSOLE_PATH }, { localTokenPath }] =
            await Promise.all([
              import('@foundry/mcp'),
              import('../../hook-route.js'),
              import('../../console-route.js'),
              import('@foundry/server/runtime'),
            ])
          const port = options.port === undefined ? 7411 : Number(options.port)
          if (!Number.isInteger(port) || port < 0 || port > 65535)
            throw new Error(`--port must be a whole number from 0 to 65535, got ${options.port}`)
          // The console's routes, closed once the server has stopped: runs dispatched from it are cancelled, not left behind.
          const consoles: Array<ReturnType<typeof consoleRoute>> = []
          const publicRoute = (
            project: Parameters<typeof consoleRoute>[0],
            tokens: Parameters<typeof consoleRoute>[1],
          ) => {
            const route = consoleRoute(project, tokens, options.allowHost)
            consoles.push(route)
            return route
          }
          let local: { file: string; secret: string } | undefined
          await serveFoundryHttp({
            open: ctx.project,
            beside,
            route: hookRoute,
            publicRoute,
            console: true,
            port,
            ...(options.host && { host: options.host }),
            ...(options.allowHost && { hostnames: options.allowHost }),
            localToken: localTokenPath(),
            onLocalToken: (token) => (local = token),
            // The secret is shown only to a person at a terminal, in the one URL to open; a log gets where it is.
            onListening: (server) =>
              local &&
              process.stderr.write(
                process.stderr.isTTY
                  ? `foundry: web console at ${new URL(CONSOLE_PATH, server.url).href}#token=${local.secret}\n`
                  : `foundry: web console at ${new URL(CONSOLE_PATH, server.url).href} (enter the local token from ${local.file})\n`,
              ),
          })
          await Promise.all(consoles.map((route) => route.close()))
          process.exit(0)
        }
        await serveMcpStdio(ctx)
      }),
    )
}
