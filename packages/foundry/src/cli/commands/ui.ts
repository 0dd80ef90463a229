import { Command } from 'commander'
import { action } from '../context.js'

/** `foundry ui [--port N] [--host H]`: the web console for the project, on loopback by default, until Ctrl-C. */
export function uiCommand(): Command {
  return new Command('ui')
    .description('Serve the web console for the project (memory, index, runbooks, tokens, runs, health) at http://127.0.0.1:7413/ until Ctrl-C')
    .option('--port <n>', 'the port (default 7413; 0 picks a free one)')
    .option('--host <address>', 'the address to bind (default 127.0.0.1; another needs team tokens: foundry token create)')
    .action(
      action(async (ctx, options: { port?: string; host?: string }, command: Command) => {
        const port = options.port === undefined ? 7413 : Number(options.port)
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a whole number from 0 to 65535, got ${options.port}`)
        const [{ locateProject }, { serveConsole }] = await Promise.all([import('@foundry/project'), import('@foundry/console')])
        const given = command.optsWithGlobals<{ root?: string }>().root
        const root = locateProject({ ...(given !== undefined && { root: given }), cwd: process.cwd() })
        const server = await serveConsole({ root, port, ...(options.host && { host: options.host }) })
        process.stderr.write(`foundry console: ${server.url} (Ctrl-C to stop)\n`)
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve)
          process.once('SIGTERM', resolve)
        })
        await server.close()
        process.exit(0)
      }),
    )
}
