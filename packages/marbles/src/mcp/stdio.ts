// One stdio lifecycle for both servers (@foundry/server): backpressure, message limits, closing on
// stdin's end once every request read is answered (or after a grace period: the client is gone).
import { FoundryStdioTransport, keepServing, serveUntilClosed, stderrLog } from '@foundry/server/stdio'
import { openHost, type MarblesHostOptions } from './host.js'
import { createMarblesServer } from './server.js'

export interface ServeMarblesStdioOptions extends MarblesHostOptions {
  log?: (line: string) => void
  /** Send `console.log` and friends to stderr (process-wide: for a bin, whose stdout is the protocol). Default false. */
  console?: boolean
}

/**
 * `marbles mcp`: open the workspace, the state and an engine first (a failure throws before any
 * protocol message, so the caller prints one line and the client's `initialize` is never answered),
 * then serve one client over stdin/stdout until it closes stdin (once every request read has its
 * answer) or SIGINT/SIGTERM; then cancel the runs still going and close the engine and the state.
 */
export async function serveMarblesStdio(options: ServeMarblesStdioOptions): Promise<void> {
  const log = options.log ?? stderrLog('marbles')
  // A stray exception is logged, not fatal; the bin also sends what workspace modules print to stderr.
  keepServing(log, { console: options.console ?? false })
  const host = await openHost(options)
  await serveUntilClosed(createMarblesServer(host, log), new FoundryStdioTransport(log), async () => {
    const going = host.engine.active()
    if (going.length) log(`shutting down: cancelling ${going.length} run(s) still going (${going.join(', ')})`)
    await host.close().catch((error: unknown) => log(`closing the engine failed: ${(error as Error).message}`))
  }, { log })
}
