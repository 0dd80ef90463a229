// One stdio lifecycle for both servers (@foundry/server): backpressure, message limits, closing on
// stdin's end once every request read is answered (or after a grace period: the client is gone).
import { FoundryStdioTransport, keepServing, retrying, serveUntilClosed, stderrLog } from '@foundry/server/stdio'
import { parseHarnessFlags } from '../harnesses/flags.js'
import { initializeResult } from './handshake.js'
import type { MarblesHost, MarblesHostOptions } from './host.js'

export interface ServeMarblesStdioOptions extends MarblesHostOptions {
  log?: (line: string) => void
  /** Send `console.log` and friends to stderr (process-wide: for a bin, whose stdout is the protocol). Default false. */
  console?: boolean
}

/**
 * `marbles mcp`: serve one client over stdin/stdout until it closes stdin (once every request read has
 * its answer) or SIGINT/SIGTERM; then cancel the runs still going and close the engine and the state.
 * `initialize` is answered as soon as it is read; the workspace, the state and the engine open once the
 * client has initialized, or on the first call that needs them, once for every caller. A failure to
 * open them (a workspace module that throws, a missing variable) is that call's error, one line naming
 * the file or variable, and the next call tries again. A bad `--harness` flag throws before any
 * protocol message, so the caller prints one line.
 */
export async function serveMarblesStdio(options: ServeMarblesStdioOptions): Promise<void> {
  parseHarnessFlags(options.harness)
  const log = options.log ?? stderrLog('marbles')
  // A stray exception is logged, not fatal; the bin also sends what workspace modules print to stderr.
  keepServing(log, { console: options.console ?? false })
  const transport = new FoundryStdioTransport(log, { initialize: initializeResult })
  await transport.start()
  let opened: Promise<MarblesHost> | undefined
  const host = retrying(() => (opened = import('./host.js').then(({ openHost }) => openHost(options))))
  const { createMarblesServer } = await import('./server.js')
  await serveUntilClosed(
    createMarblesServer(host, log),
    transport,
    async () => {
      const open = await opened?.catch(() => undefined)
      if (!open) return
      const going = open.engine.active()
      if (going.length) log(`shutting down: cancelling ${going.length} run(s) still going (${going.join(', ')})`)
      await open.close().catch((error: unknown) => log(`closing the engine failed: ${(error as Error).message}`))
    },
    { log },
  )
}
