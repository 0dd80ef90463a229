import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js'
import type { Project } from '@foundry/project'
import { startHookServer, type StartedHooks } from './hook-server.js'
import { createServer } from './server.js'

export interface ServeStdioOptions {
  /** Opens the project; called when the client has initialized, or on the first request that needs it. */
  open: () => Promise<Project>
  /**
   * Once the project is open, also answer its hooks over the hook socket (hook-server.ts), until
   * the server closes. Default true; `foundry mcp` turns it off when `FOUNDRY_HOOK_SERVER=off`.
   */
  hooks?: boolean
  /** Diagnostics, one line each. Default: stderr. */
  log?: (line: string) => void
}

/**
 * `foundry mcp`: serve one client over stdin/stdout until it closes stdin (once every request it
 * sent is answered) or the process is told to stop, then stop the hook server, flush and release the
 * project. Resolves once everything is closed.
 */
export async function serveStdio(options: ServeStdioOptions): Promise<void> {
  // stdout belongs to the protocol: anything a dependency prints goes to stderr instead.
  console.log = console.info = console.debug = console.error
  const log = options.log ?? ((line: string) => void process.stderr.write(`foundry: ${line}\n`))
  // The server calls this once, and again only after a failure; `opened` is what to close at the end.
  let opened: Promise<Project> | undefined
  let hooks: Promise<StartedHooks | undefined> | undefined
  let closing = false
  const open = async () => {
    const project = await (opened = options.open())
    if ((options.hooks ?? true) && !closing) hooks ??= startHookServer(project, log)
    return project
  }
  const server = createServer({ kernel: async () => (await open()).kernel, log })

  const closed = new Promise<void>((resolve) => {
    const close = async () => {
      if (closing) return
      closing = true
      await server.close().catch(() => {})
      await (await hooks)?.close().catch((error: unknown) => log(`closing the hook server failed: ${(error as Error).message}`))
      await (await opened?.catch(() => undefined))
        ?.close()
        .catch((error: unknown) => log(`closing the project failed: ${(error as Error).message}`))
      resolve()
    }
    process.once('SIGINT', close)
    process.once('SIGTERM', close)
    server.onclose = close
  })
  await server.connect(new DrainingStdioTransport())
  await closed
}

/**
 * The SDK's stdio transport, closing when stdin ends but only once every request read so far has
 * its response written: a client may send its last request and close stdin at once
 * (`printf '…' | foundry mcp`), and still deserves the answer.
 */
class DrainingStdioTransport implements Transport {
  onmessage?: Transport['onmessage']
  onerror?: Transport['onerror']
  onclose?: Transport['onclose']
  private readonly inner = new StdioServerTransport()
  private unanswered = 0
  private ended = false

  constructor() {
    this.inner.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      if ('method' in message && 'id' in message) this.unanswered++
      this.onmessage?.(message, extra)
    }
    this.inner.onerror = (error) => this.onerror?.(error)
    this.inner.onclose = () => this.onclose?.()
  }

  async start(): Promise<void> {
    await this.inner.start()
    process.stdin.once('end', () => {
      this.ended = true
      this.closeWhenAnswered()
    })
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.inner.send(message)
    if (!('method' in message) && 'id' in message) {
      this.unanswered--
      this.closeWhenAnswered()
    }
  }

  close(): Promise<void> {
    return this.inner.close()
  }

  private closeWhenAnswered(): void {
    if (this.ended && this.unanswered <= 0) void this.close()
  }
}
