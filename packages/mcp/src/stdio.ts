import type { Project } from '@foundry/project'
import { FoundryStdioTransport, keepServing, serveUntilClosed, stderrLog } from '@foundry/server/stdio'
import { initializeResult } from './handshake.js'
import { projectOpener, type BesideService } from './project-opener.js'

interface ServeStdioOptions {
  /** Opens the project; called once `initialize` is answered, or on the first request that needs it. */
  open: () => Promise<Project>
  /**
   * Services to start once the project is open and stop when the server closes: the `foundry` app
   * passes the hook server, unless `FOUNDRY_HOOK_SERVER=off`. Default none.
   */
  beside?: readonly BesideService[]
  /** Diagnostics, one line each. Default: stderr. */
  log?: (line: string) => void
  /** Send `console.log` and friends to stderr (process-wide: for a bin, whose stdout is the protocol). Default false. */
  console?: boolean
}

/**
 * `foundry mcp`: serve one client over stdin/stdout until it closes stdin (once every request it
 * sent is answered) or the process is told to stop, then stop the `beside` services, flush and release the
 * project. Resolves once everything is closed.
 */
export async function serveStdio(options: ServeStdioOptions): Promise<void> {
  // The lifecycle every server shares (@foundry/server): no stray exception ends the process.
  const log = options.log ?? stderrLog('foundry')
  keepServing(log, { console: options.console ?? false })
  // The services beside the project (the hook server) start once the requests waiting for it are
  // answered: a new session's first question is not kept waiting while they load and listen.
  const project = projectOpener(options.open, {
    ...(options.beside && { beside: options.beside }),
    ready: () => idleOrLater(transport, BESIDE_WAIT_MS),
    log,
  })
  // `initialize` is answered as soon as it is read, while the SDK's Server (and zod) loads; the project
  // starts opening once that answer is written, so the first call finds it open (or opening). Not
  // before: opened at start, fs writers killed at random (test/soak.test.ts) acknowledged next to nothing.
  const transport: FoundryStdioTransport = new FoundryStdioTransport(log, {
    initialize: (message) => {
      const result = initializeResult(message)
      if (result) setImmediate(() => project.prepare())
      return result
    },
  })
  await transport.start()
  const { createServer } = await import('./server.js')
  const server = createServer({ kernel: async () => (await project.open()).kernel, log })
  await serveUntilClosed(server, transport, () => project.close(), { log })
}

/** The longest the `beside` services wait for the server to be idle: a client that never lets it be still gets them. */
const BESIDE_WAIT_MS = 2000

function idleOrLater(transport: FoundryStdioTransport, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    timer.unref()
    void transport.idle().then(() => {
      clearTimeout(timer)
      resolve()
    })
  })
}
