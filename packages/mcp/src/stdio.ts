import type { Kernel } from '@foundry/kernel'
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
  const kernel = async () => (await project.open()).kernel
  // `initialize` is answered once the project is open and its index mapped (or after READY_WAIT_MS),
  // before the SDK's Server and zod load: a call that follows at once is answered here, through the
  // calls the Server is later built on, and the Server loads once the client is quiet or sends what
  // only it answers. The project opens once `initialize` is read, not at start: opened at start, fs
  // writers killed at random (test/soak.test.ts) acknowledged next to nothing.
  let calls: Awaited<ReturnType<typeof loadCalls>> | undefined
  let loading: Promise<NonNullable<typeof calls>> | undefined
  const callsNow = () => (loading ??= loadCalls(kernel, log).then((made) => (calls = made)))
  const ready = async () => {
    const loaded = callsNow()
    // A project that cannot open answers its first call with the reason, as before: not initialize's to report.
    const mapped = kernel()
      .then((opened) => opened.memory.warm('search'))
      .catch(() => undefined)
    await Promise.race([Promise.all([loaded, mapped]), delay(READY_WAIT_MS)])
  }
  const transport: FoundryStdioTransport = new FoundryStdioTransport(log, {
    initialize: (message) => {
      const result = initializeResult(message)
      return result && ready().then(() => result)
    },
    early: (request) => calls?.early(request),
  })
  await transport.start()
  await transport.needed(QUIET_MS)
  const { createServer } = await import('./server.js')
  const server = createServer({ kernel, log, calls: await callsNow() })
  await serveUntilClosed(server, transport, () => project.close(), { log })
}

/** The tool calls of `TOOLS` on the project's kernel, loaded when `initialize` is read. */
async function loadCalls(kernel: () => Promise<Kernel>, log: (line: string) => void) {
  const [{ toolCalls }, { TOOLS }] = await Promise.all([import('@foundry/server/calls'), import('./tools.js')])
  return toolCalls({ tools: TOOLS, context: kernel, log })
}

/** The longest `initialize` waits for the project to open and its index to be mapped: past it, the answer goes, and the first call waits instead. */
const READY_WAIT_MS = 250

/** How long the client is quiet, once the first answers are written, before the SDK's Server loads. */
const QUIET_MS = 20

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref())
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
