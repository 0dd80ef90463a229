import { Command } from 'commander'
import { action } from '../context.js'

/** `foundry ui [--port N] [--host H]`: the web console for the project, on loopback by default, until Ctrl-C. */
export function uiCommand(): Command {
  return new Command('ui')
    .description(
      'Serve the web console for the project (memory, index, runbooks, tokens, runs, health) at http://127.0.0.1:7413/ until Ctrl-C; without team tokens it requires the local token (the address printed at a terminal carries it)',
    )
    .option('--port <n>', 'the port (default 7413; 0 picks a free one)')
    .option(
      '--host <address>',
      'the address to bind (default 127.0.0.1; another needs team tokens: foundry token create)',
    )
    .action(
      action(async (_ctx, options: { port?: string; host?: string }, command: Command) => {
        const port = options.port === undefined ? 7413 : Number(options.port)
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new Error(`--port must be a whole number from 0 to 65535, got ${options.port}`)
        const [{ locateProject }, { serveConsole }, { localTokenPath }, { marblesRunActions }] = await Promise.all([
          import('@foundry/project'),
          import('@foundry/console'),
          import('@foundry/server/runtime'),
          import('../../run-actions.js'),
        ])
        const given = command.optsWithGlobals<{ root?: string }>().root
        const root = locateProject({ ...(given !== undefined && { root: given }), cwd: process.cwd() })
        // Without team tokens the console is the user's alone: it requires the user's local token (as foundry mcp --http does).
        const server = await serveConsole({
          root,
          port,
          ...(options.host && { host: options.host }),
          localToken: localTokenPath(),
          // Dispatch, cancel and re-run from the Runs pages: the workflows run in this process, as under marbles mcp.
          runs: (project) => marblesRunActions(project.root),
        })
        const { local } = server
        // Listening for the stop signals before the address is printed: a supervisor may send one as soon as it reads it.
        const stopped = new Promise<void>((resolve) => {
          process.once('SIGINT', resolve)
          process.once('SIGTERM', resolve)
        })
        process.stderr.write(`foundry console: ${server.url} (Ctrl-C to stop)\n`)
        // The secret is shown only to a person at a terminal, in the one URL to open; a log gets where it is.
        if (local)
          process.stderr.write(
            process.stderr.isTTY
              ? `foundry console: open ${server.url}#token=${local.secret}\n`
              : `foundry console: enter the local token from ${local.file}\n`,
          )
        await stopped
        await server.close()
        process.exit(0)
      }),
    )
}
