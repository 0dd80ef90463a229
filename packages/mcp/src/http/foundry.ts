import type { Kernel } from '@foundry/kernel'
import type { Project } from '@foundry/project'
import { keepServing, projectOpener, stderrLog } from '../lifecycle.js'
import { createServer } from '../server.js'
import { hookRoute } from './hook-route.js'
import type { HttpServer } from './serve.js'
import { loadTokens } from './tokens.js'
import { serveHttpUntilStopped } from './until-stopped.js'

export interface ServeFoundryHttpOptions {
  /** Opens the project (once, at start-up: a team server fails before it listens, not on a client's first call). */
  open: () => Promise<Project>
  host?: string
  port?: number
  /** More Host names clients may use (`--allow-host`), e.g. the machine's name when bound to 0.0.0.0. */
  hostnames?: string[]
  /** Also answer the project's local hooks over the hook socket (as `foundry mcp` on stdio). Default true. */
  hooks?: boolean
  /** How long SIGTERM waits for calls in flight. Default 10 s. */
  deadlineMs?: number
  log?: (line: string) => void
  /** Called once listening, with the URL (the CLI prints it). */
  onListening?: (server: HttpServer) => void
}

/**
 * `foundry mcp --http`: the foundry MCP server for many clients at once, each token's calls made as it
 * (facts it writes carry its name in `author`, and each tool call is one `mcp.tool_call` event naming
 * it). Resolves once SIGINT/SIGTERM stopped it: no new requests, calls in flight finished (up to the
 * deadline), every session closed, the hook server stopped and the project closed.
 */
export async function serveFoundryHttp(options: ServeFoundryHttpOptions): Promise<void> {
  const log = options.log ?? stderrLog('foundry')
  keepServing(log)
  const project = projectOpener(options.open, { hooks: options.hooks ?? true, log })
  const opened = await project.open()
  let tokens: ReturnType<typeof loadTokens>
  try {
    tokens = loadTokens(opened.root)
  } catch (error) {
    await project.close()
    throw error
  }
  const kernels = new Map<string, Kernel>()
  const kernelOf = (name: string) => {
    let kernel = kernels.get(name)
    if (!kernel) kernels.set(name, (kernel = authored(opened.kernel, name)))
    return kernel
  }
  await serveHttpUntilStopped({
    name: 'foundry',
    ...(options.host !== undefined && { host: options.host }),
    ...(options.port !== undefined && { port: options.port }),
    ...(options.hostnames && { hostnames: options.hostnames }),
    deadlineMs: options.deadlineMs,
    onListening: options.onListening,
    tokens,
    log,
    session: (principal) => createServer({ kernel: async () => (tokens.size ? kernelOf(principal.name) : opened.kernel), log }),
    onCall: (call) => void opened.kernel.record('mcp.tool_call', { ...call }),
    route: hookRoute(opened),
    release: () => project.close(),
  })
}

/** The kernel as one token sees it: the facts it writes name it in `author`. */
export function authored(kernel: Kernel, author: string): Kernel {
  const memory = { ...kernel.memory, write: (input: unknown, options?: { author?: string }) => kernel.memory.write(input, { ...options, author }) }
  return Object.create(kernel, { memory: { value: memory, enumerable: true } }) as Kernel
}
