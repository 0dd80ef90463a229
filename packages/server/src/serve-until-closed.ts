import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { onStopSignal } from './lifecycle.js'

/** How long `release` may take once the server closed before `serveUntilClosed` resolves anyway: 10 s. */
export const RELEASE_GRACE_MS = 10_000

/**
 * Serve `server` on `transport` (stdio) until the transport closes (stdin ended, and every request
 * read answered or given up) or SIGINT/SIGTERM; then close the server and call `release` once.
 * Resolves when `release` has, or after `releaseGraceMs` (one line to `log`): a bin exits then,
 * whatever its calls still do.
 */
export async function serveUntilClosed(
  server: Server,
  transport: Transport,
  release: () => Promise<void>,
  options: { releaseGraceMs?: number; log?: (line: string) => void } = {},
): Promise<void> {
  const grace = options.releaseGraceMs ?? RELEASE_GRACE_MS
  const closed = new Promise<void>((resolve) => {
    let closing = false
    const close = async () => {
      if (closing) return
      closing = true
      await server.close().catch(() => {})
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<void>((done) => {
        timer = setTimeout(() => {
          options.log?.(`still releasing after ${grace} ms: stopping anyway`)
          done()
        }, grace)
        timer.unref()
      })
      await Promise.race([release(), late])
      clearTimeout(timer)
      resolve()
    }
    onStopSignal(() => void close())
    server.onclose = close
  })
  await server.connect(transport)
  await closed
}
