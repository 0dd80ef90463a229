import type { Kernel } from '@foundry/kernel'
import type { Project } from '@foundry/project'
import {
  claimLocalToken,
  isLoopback,
  serveHttpUntilStopped,
  tokenBook,
  type loadTokens,
  type LocalToken,
} from '@foundry/server'
import { keepServing, stderrLog } from '@foundry/server/stdio'
import { projectOpener, type BesideService } from '../project-opener.js'
import { createServer } from '../server.js'
import { TOOLS } from '../tools.js'
import { keepCurrent } from './keep-current.js'

/** Where to listen, and how to serve: the server kit's options, as `serveHttpUntilStopped` takes them. */
type HttpListenOptions = Parameters<typeof serveHttpUntilStopped>[0]
type HttpServeOptions = Parameters<typeof serveHttpUntilStopped>[1]
/** The tokens a server accepts, as the kit reads them. */
type TokenStore = ReturnType<typeof loadTokens>

export interface ServeFoundryHttpOptions extends HttpListenOptions {
  /** Opens the project (once, at start-up: a team server fails before it listens, not on a client's first call). */
  open: () => Promise<Project>
  /** Services to start beside the open project (as on stdio: the app's hook server). Default none. */
  beside?: readonly BesideService[]
  /** Other routes beside /mcp, for the open project (the app's team hook endpoint): true when it answered. */
  route?: (project: Project) => NonNullable<HttpServeOptions['route']>
  /** Routes that check their callers themselves (the app's web console), given the server's tokens. */
  publicRoute?: (project: Project, tokens: TokenStore) => NonNullable<HttpServeOptions['publicRoute']>
  /** Send `console.log` and friends to stderr (process-wide: for a bin). Default false. */
  console?: boolean
  /**
   * Where the user's local token lives (the app passes the per-user runtime folder's `http.token`).
   * Given, a loopback server without team tokens requires it (`claimLocalToken`); without it, such a
   * server lets every local client in.
   */
  localToken?: string
  /** Called with the local token in use, if any, before listening (the app then prints the console's address). */
  onLocalToken?: (token: LocalToken) => void
}

/**
 * `foundry mcp --http`: the foundry MCP server for many clients at once, each token's calls made as it
 * (facts it writes carry its name in `author`, and each tool call is one `mcp.tool_call` event naming
 * it). Without team tokens, on loopback and given `localToken`, every client needs the user's local
 * token (its principal is `local`, as without authentication). Resolves once SIGINT/SIGTERM stopped it: no new requests, calls in flight finished (up to the
 * deadline), every session closed, the `beside` services stopped and the project closed.
 */
export async function serveFoundryHttp(options: ServeFoundryHttpOptions): Promise<void> {
  const log = options.log ?? stderrLog('foundry')
  keepServing(log, { console: options.console ?? false })
  const project = projectOpener(options.open, { ...(options.beside && { beside: options.beside }), log })
  const opened = await project.open()
  let team: (TokenStore & { close(): void }) | undefined
  let local: LocalToken | undefined
  try {
    // The project's tokens, followed while serving: one created or revoked elsewhere counts within a second.
    team = await tokenBook(opened).open()
    if (team.size === 0 && options.localToken && isLoopback(options.host ?? '127.0.0.1'))
      local = await claimLocalToken(options.localToken)
  } catch (error) {
    team?.close()
    await project.close()
    throw error
  }
  const followed = team
  // Team mode is decided at start, as the server's authentication is: with team tokens, each writes as itself.
  const asTeam = team.size > 0
  const tokens = local?.store ?? team
  if (local) options.onLocalToken?.(local)
  // Another server's writes reach this one's search index as they are heard, not at the next search.
  const stopFollowing = keepCurrent(opened, log)
  const kernels = new Map<string, Kernel>()
  const kernelOf = (name: string) => {
    let kernel = kernels.get(name)
    if (!kernel) kernels.set(name, (kernel = authored(opened.kernel, name)))
    return kernel
  }
  await serveHttpUntilStopped(options, {
    name: 'foundry',
    tokens: team,
    ...(local && { localToken: local }),
    log,
    tools: TOOLS,
    session: (principal) =>
      createServer({ kernel: async () => (asTeam ? kernelOf(principal.name) : opened.kernel), log }),
    onCall: (call) => void opened.kernel.record('mcp.tool_call', { ...call }),
    ...(options.route && { route: options.route(opened) }),
    ...(options.publicRoute && { publicRoute: options.publicRoute(opened, tokens) }),
    release: () => (stopFollowing(), followed.close(), project.close()),
  })
}

/** The kernel as one token sees it: the facts it writes name it in `author`. */
export function authored(kernel: Kernel, author: string): Kernel {
  const memory = {
    ...kernel.memory,
    write: (input: unknown, options?: { author?: string }) => kernel.memory.write(input, { ...options, author }),
  }
  return Object.create(kernel, { memory: { value: memory, enumerable: true } }) as Kernel
}
