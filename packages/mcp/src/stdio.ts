import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { Project } from './config.js'
import { createServer } from './server.js'

export interface ServeStdioOptions {
  /** Opens the project; called when the client has initialized, or on the first request that needs it. */
  open: () => Promise<Project>
  /** Diagnostics, one line each. Default: stderr. */
  log?: (line: string) => void
}

/**
 * `foundry mcp`: serve one client over stdin/stdout until it closes stdin or the process is told to
 * stop, then flush and release the project. Resolves once everything is closed.
 */
export async function serveStdio(options: ServeStdioOptions): Promise<void> {
  // stdout belongs to the protocol: anything a dependency prints goes to stderr instead.
  console.log = console.info = console.debug = console.error
  const log = options.log ?? ((line: string) => void process.stderr.write(`foundry: ${line}\n`))
  // The server calls this once, and again only after a failure; `opened` is what to close at the end.
  let opened: Promise<Project> | undefined
  const server = createServer({ kernel: async () => (await (opened = options.open())).kernel, log })

  const closed = new Promise<void>((resolve) => {
    let closing = false
    const close = async () => {
      if (closing) return
      closing = true
      await server.close().catch(() => {})
      await (await opened?.catch(() => undefined))
        ?.close()
        .catch((error: unknown) => log(`closing the project failed: ${(error as Error).message}`))
      resolve()
    }
    process.stdin.once('end', close)
    process.once('SIGINT', close)
    process.once('SIGTERM', close)
    server.onclose = close
  })
  await server.connect(new StdioServerTransport())
  await closed
}
