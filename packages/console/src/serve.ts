import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { FoundryError, safeTelemetry, type Storage } from '@foundry/kernel'
import { openProject, type Project } from '@foundry/project'
import { claimLocalToken, tokenBook, type LocalToken } from '@foundry/server'
import type { TokenVerifier } from './auth.js'
import { isLoopback } from './guard.js'
import { createConsoleHandler } from './handler.js'
import type { RunActions } from './run-actions.js'

export interface ServeConsoleOptions {
  /** The project folder (or a folder inside it); default: found from the working directory, like git. */
  root?: string
  /** Default 127.0.0.1. Any other than loopback needs team tokens (`foundry token create`). */
  host?: string
  /** Default 7413; 0 picks a free port. */
  port?: number
  /** A secret that may read and write, besides the team tokens. */
  token?: string
  /**
   * The tokens to require instead of the project's (e.g. the user's local token, so that no other
   * local user browses). Default: the project's team tokens; none means loopback clients browse freely.
   */
  tokens?: TokenVerifier
  /**
   * Where the user's local token lives (`localTokenPath()`): without `tokens`, on loopback, and when
   * the project has no team tokens, the console requires it (claimed at start, returned as `local`).
   */
  localToken?: string
  /** Host names besides loopback ones that browsers may use to reach the console. */
  hostnames?: string[]
  log?: (line: string) => void
  /**
   * Dispatch, cancel and re-run from the Runs pages: made over the opened project (the app passes
   * Marbles' engine), closed with the server.
   */
  runs?: (project: Project) => RunActions & { close?(): Promise<void> }
}

export interface ConsoleServer {
  /** `http://host:port/`. */
  url: string
  port: number
  /** The local token the console requires, when `localToken` was given and the project has no team tokens. */
  local?: LocalToken
  /** Stop listening, end the live streams and close the project. Idempotent. */
  close(): Promise<void>
}

/**
 * What the console itself records: what it changes (edits and forgets), not what people look at,
 * so browsing leaves the token report's tool counts as the agents made them.
 */
const RECORDED = new Set(['memory_write', 'memory_forget', 'memory_index'])

/** Open the project and serve the console on `host:port`. */
export async function serveConsole(options: ServeConsoleOptions = {}): Promise<ConsoleServer> {
  const host = options.host ?? '127.0.0.1'
  let storage: Storage | undefined
  const telemetry = safeTelemetry({
    record: async (event) => void (RECORDED.has(event.kind) && (await storage?.appendEvent(event))),
  })
  const project = await openProject({ ...(options.root && { root: options.root }), kernel: { telemetry } })
  storage = project.storage
  // The project's team tokens (its file, or its database), followed while serving: a revocation counts within a second.
  let team: Awaited<ReturnType<ReturnType<typeof tokenBook>['open']>> | undefined
  let runs: ReturnType<NonNullable<ServeConsoleOptions['runs']>> | undefined
  try {
    team = await tokenBook(project).open()
    if (!isLoopback(host) && team.size === 0)
      throw new FoundryError(
        'INVALID_INPUT',
        `--host ${host} is not a loopback address and the project has no team tokens: create one with foundry token create --role read --name <who>, or bind to 127.0.0.1`,
      )
    const local =
      !options.tokens && team.size === 0 && options.localToken ? await claimLocalToken(options.localToken) : undefined
    const tokens = options.tokens ?? local?.store ?? team
    runs = options.runs?.(project)
    const handler = createConsoleHandler({
      project,
      tokens,
      ...(runs && { runs }),
      ...(options.token && { token: options.token }),
      ...(options.hostnames && { hostnames: options.hostnames }),
      ...(options.log && { log: options.log }),
    })
    const server = createServer(handler)
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'EADDRINUSE'
            ? new FoundryError(
                'UNAVAILABLE',
                `--port ${options.port ?? 7413} is in use: pick another (--port 0 for any free one)`,
              )
            : error,
        ),
      )
      server.listen(options.port ?? 7413, host, resolve)
    })
    const port = (server.address() as AddressInfo).port
    let closing: Promise<void> | undefined
    return {
      url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/`,
      port,
      ...(local && { local }),
      close: () =>
        (closing ??= (async () => {
          team?.close()
          handler.close()
          server.closeAllConnections()
          await new Promise<void>((resolve) => server.close(() => resolve()))
          await runs?.close?.()
          await project.close()
        })()),
    }
  } catch (error) {
    team?.close()
    await runs?.close?.()
    await project.close()
    throw error
  }
}
