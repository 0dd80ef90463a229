// One stdio lifecycle for both servers: `foundry mcp`'s transport (backpressure, message limits,
// closing on stdin's end once every request read is answered).
import { FoundryStdioTransport, keepServing, onStopSignal, stderrLog } from '@foundry/mcp'
import { openHost, type MarblesHostOptions } from './host.js'
import { createMarblesServer } from './server.js'

/**
 * `marbles mcp`: open the workspace, the state and an engine first (a failure throws before any
 * protocol message, so the caller prints one line and the client's `initialize` is never answered),
 * then serve one client over stdin/stdout until it closes stdin (once every request read has its
 * answer) or SIGINT/SIGTERM; then cancel the runs still going and close the engine and the state.
 */
export async function serveMarblesStdio(options: MarblesHostOptions & { log?: (line: string) => void }): Promise<void> {
  const log = options.log ?? stderrLog('marbles')
  // stdout belongs to the protocol (what workspace modules print goes to stderr); a stray exception is logged, not fatal.
  keepServing(log)
  const host = await openHost(options)
  const server = createMarblesServer(host)
  const closed = new Promise<void>((resolve) => {
    let closing = false
    const close = async () => {
      if (closing) return
      closing = true
      const going = host.engine.active()
      if (going.length) log(`shutting down: cancelling ${going.length} run(s) still going (${going.join(', ')})`)
      await server.close().catch(() => {})
      await host.close().catch((error: unknown) => log(`closing the engine failed: ${(error as Error).message}`))
      resolve()
    }
    onStopSignal(() => void close())
    server.onclose = close
  })
  await server.connect(new FoundryStdioTransport(log))
  await closed
}
