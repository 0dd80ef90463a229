import { claimLocalToken, isLoopback, serveHttpUntilStopped, tokenBook, type LocalToken } from '@foundry/server'
import { keepServing, stderrLog } from '@foundry/server/stdio'
import { openHost, type MarblesHostOptions } from './host.js'
import { createMarblesServer } from './server.js'
import { signalRoute } from './signal-route.js'
import { TOOLS } from './tools.js'

export type ServeMarblesHttpOptions = MarblesHostOptions &
  Parameters<typeof serveHttpUntilStopped>[0] & {
    /** Send `console.log` and friends to stderr (process-wide: for a bin). Default false. */
    console?: boolean
    /**
     * Where the user's local token lives (the bin passes `localTokenPath()`, in the per-user private
     * runtime folder). Given, a loopback server without team tokens requires it (`claimLocalToken`);
     * without it, such a server lets every local client in.
     */
    localToken?: string
  }

/**
 * `marbles mcp --http`: the five tools over Streamable HTTP for many clients at once, one engine
 * behind them, the same lifecycle and tokens as `foundry mcp --http` (`.foundry/tokens.json` under
 * the root, the database on a PostgreSQL project, or `FOUNDRY_TOKENS`; a revoked one refused within a second): list_config and get_run need read, dispatch and cancel need run.
 * Each tool call is one `mcp.tool_call` event naming the token. Without team tokens, on loopback and
 * given `localToken`, every client needs the user's local token (the start-up line names its file,
 * never the secret). SIGINT/SIGTERM: no new requests,
 * calls in flight finished (up to the deadline), then the runs still going are cancelled (part 1's
 * reconciliation) and the engine and the state closed.
 */
export async function serveMarblesHttp(options: ServeMarblesHttpOptions): Promise<void> {
  const log = options.log ?? stderrLog('marbles')
  keepServing(log, { console: options.console ?? false })
  const host = await openHost(options)
  let tokens: Awaited<ReturnType<ReturnType<typeof tokenBook>['open']>>
  let local: LocalToken | undefined
  try {
    // The project's tokens (its file, or its database), followed while serving: a revocation counts within a second.
    tokens = await tokenBook(host.state.tokenSite).open()
    if (tokens.size === 0 && options.localToken && isLoopback(options.host ?? '127.0.0.1'))
      local = await claimLocalToken(options.localToken)
  } catch (error) {
    await host.close().catch(() => {})
    throw error
  }
  await serveHttpUntilStopped(options, {
    name: 'marbles',
    tokens,
    ...(local && { localToken: local }),
    log,
    tools: TOOLS,
    route: signalRoute(host),
    session: () => createMarblesServer(host, log),
    onCall: (call) => void host.state.kernel.record('mcp.tool_call', { ...call }),
    async release(stopped) {
      tokens.close()
      if (!stopped) return host.close().catch(() => {})
      const going = host.engine.active()
      if (going.length) log(`shutting down: cancelling ${going.length} run(s) still going (${going.join(', ')})`)
      await host.close().catch((error: unknown) => log(`closing the engine failed: ${(error as Error).message}`))
    },
  })
}
