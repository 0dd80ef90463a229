import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ConsoleHandler, TokenVerifier } from '@foundry/console'
import type { Project } from '@foundry/project'
import type { MarblesRunActions } from './run-actions.js'

/** Where a team server serves the web console. */
export const CONSOLE_PATH = '/ui/'

/**
 * The web console under `/ui/` of `foundry mcp --http`, behind the server's own tokens and roles
 * (read browses; write edits and forgets; run dispatches, cancels and re-runs workflows, which run
 * in this process as `marbles mcp` runs them). It checks its callers itself, so it runs before the
 * MCP bearer check: a page cannot send a token with every file it loads. Loaded on its first request.
 * `close()` ends its live feeds and cancels the runs still executing here (the server is stopping).
 */
export function consoleRoute(project: Project, tokens: TokenVerifier, hostnames: string[] = []) {
  let handler: Promise<ConsoleHandler> | undefined
  let runs: MarblesRunActions | undefined
  const route = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const path = (req.url ?? '/').split('?')[0]!
    if (path !== CONSOLE_PATH.slice(0, -1) && !path.startsWith(CONSOLE_PATH)) return false
    handler ??= Promise.all([import('@foundry/console'), import('./run-actions.js')]).then(
      ([{ createConsoleHandler }, { marblesRunActions }]) =>
        createConsoleHandler({
          project,
          tokens,
          basePath: CONSOLE_PATH,
          hostnames,
          runs: (runs = marblesRunActions(project.root)),
        }),
    )
    ;(await handler)(req, res)
    return true
  }
  const close = async () => {
    ;(await handler?.catch(() => undefined))?.close()
    await runs?.close()
  }
  return Object.assign(route, { close })
}
