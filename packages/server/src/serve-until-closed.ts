import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { onStopSignal } from './lifecycle.js'

/**
 * Serve `server` on `transport` (stdio) until the transport closes (stdin ended and every request
 * read answered) or SIGINT/SIGTERM; then close the server and call `release` once. Resolves when
 * `release` has.
 */
export async function serveUntilClosed(server: Server, transport: Transport, release: () => Promise<void>): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    let closing = false
    const close = async () => {
      if (closing) return
      closing = true
      await server.close().catch(() => {})
      await release()
      resolve()
    }
    onStopSignal(() => void close())
    server.onclose = close
  })
  await server.connect(transport)
  await closed
}
