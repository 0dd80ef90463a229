import type { IncomingMessage, ServerResponse } from 'node:http'
import { FoundryError } from '@foundry/kernel'
import type { Project } from '@foundry/project'
import { ROUTES } from './api.js'
import { loadAssets } from './assets.js'
import {
  bearerOf,
  eitherToken,
  holds,
  LOCAL_READER,
  projectTokens,
  singleToken,
  type ConsolePrincipal,
  type TokenVerifier,
} from './auth.js'
import { refusal } from './guard.js'
import { SECURITY_HEADERS, sendError, sendJson } from './http.js'
import { createChangeFeed } from './live.js'
import type { RunActions } from './run-actions.js'

export interface ConsoleHandlerOptions {
  /** The open project (`openProject`): every answer comes from its kernel and storage. */
  project: Project
  /** A secret that may read and write (sent as `Authorization: Bearer <token>`), besides any team token. */
  token?: string
  /** The team tokens. Default: the project's `.foundry/tokens.json`. When there is at least one, every API call needs a token. */
  tokens?: TokenVerifier
  /** Where the console is mounted: `/` (default) or a path such as `/ui`. */
  basePath?: string
  /** Host names besides loopback ones that clients may use (the Host header), e.g. the machine's name. */
  hostnames?: string[]
  /** Where request failures are reported. Default: stderr. */
  log?: (line: string) => void
  /** The built front end. Default: `dist/ui` of this package. */
  assetsDir?: string
  /**
   * Dispatch, cancel and re-run (a `run` token's; the app passes Marbles' engine). Without them the
   * Runs pages only watch, and those routes answer NOT_FOUND.
   */
  runs?: RunActions
}

/** A Node request handler, and `close()` to stop its live feeds (the project stays open: it is the caller's). */
export type ConsoleHandler = ((req: IncomingMessage, res: ServerResponse) => void) & { close(): void }

/**
 * The console: its page and files under `basePath`, and its JSON and server-sent-events API under
 * `basePath/api/`. Every request is checked first: the Host and Origin headers (403), then the
 * bearer token (401) and the role the route needs (403). Without team tokens, loopback clients
 * browse without a token and only `token` may write or run; with them, a read token browses, a write
 * token edits and forgets, and a run token dispatches, cancels and re-runs (with `runs`).
 */
export function createConsoleHandler(options: ConsoleHandlerOptions): ConsoleHandler {
  const { project, runs } = options
  const base = normalBase(options.basePath ?? '/')
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`))
  const team = options.tokens ?? projectTokens(project.root)
  const tokens = options.token ? eitherToken(singleToken(options.token), team) : team
  const teamRequired = team.size > 0
  const hostnames = (options.hostnames ?? []).map((h) => h.toLowerCase())
  const assets = loadAssets(options.assetsDir)
  const feed = createChangeFeed(project.storage)

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => (res.headersSent ? res.end() : sendError(res, error, log)))
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://console.invalid')
    const refused = refusal(req, hostnames)
    if (refused) return sendJson(res, 403, { error: { code: 'FORBIDDEN', message: refused } })
    if (`${url.pathname}/` === base) return void res.writeHead(308, { ...SECURITY_HEADERS, location: base }).end()
    if (!url.pathname.startsWith(base))
      return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `Not found: the console is at ${base}` } })
    const rest = url.pathname.slice(base.length)
    if (rest.startsWith('api/')) return api(req, res, rest.slice(4), url.searchParams)
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendJson(res, 405, { error: { code: 'METHOD', message: `${req.method} not allowed here` } })
    const file = assets.get(rest === '' ? 'index.html' : rest)
    if (!file) return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `Not found: ${rest.slice(0, 100)}` } })
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': file.type,
      'cache-control': 'no-cache',
      'content-length': String(file.body.length),
    })
    res.end(req.method === 'HEAD' ? undefined : file.body)
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const principal = authenticate(req)
    if (typeof principal === 'string')
      return sendJson(
        res,
        401,
        { error: { code: 'UNAUTHORIZED', message: principal } },
        { 'www-authenticate': 'Bearer realm="foundry"' },
      )
    const matching = ROUTES.filter((route) => route.path.test(path))
    const route = matching.find((r) => r.method === req.method)
    if (!route) {
      if (matching.length)
        return sendJson(res, 405, {
          error: {
            code: 'METHOD',
            message: `${req.method} ${path}: use ${matching.map((r) => r.method).join(' or ')}`,
          },
        })
      return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `Not found: api/${path.slice(0, 100)}` } })
    }
    if (!holds(principal, route.role))
      return sendJson(res, 403, { error: { code: 'FORBIDDEN', message: forbidden(principal, route.role) } })
    const params = (route.path.exec(path) ?? []).slice(1).map((p) => decode(p))
    const started = performance.now()
    const value = await route.call({ project, feed, principal, params, query, req, res, ...(runs && { runs }) })
    // The route's own time, for the browser's devtools and the benchmarks (same origin only).
    if (!route.stream)
      sendJson(res, 200, value, { 'server-timing': `route;dur=${(performance.now() - started).toFixed(2)}` })
  }

  /** The caller, or why it is refused (401). */
  function authenticate(req: IncomingMessage): ConsolePrincipal | string {
    const secret = bearerOf(req.headers.authorization)
    if (secret)
      return (
        tokens.verify(secret) ??
        'Unauthorized: the token is not known; use a token from foundry token create (or the one the console was started with)'
      )
    if (teamRequired)
      return 'Unauthorized: this project has team tokens; send Authorization: Bearer <token> (enter a read token in the console)'
    return LOCAL_READER
  }

  return Object.assign(handler, { close: () => feed.close() })
}

function forbidden(principal: ConsolePrincipal, role: string): string {
  if (principal === LOCAL_READER)
    return `Forbidden: this needs a ${role} token; start the console with --token <secret> or create one with foundry token create --role ${role}`
  return `Forbidden: the token ${principal.name} has role ${principal.roles.join('+') || 'none'}; this needs ${role} (foundry token create --role ${role})`
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    throw new FoundryError('INVALID_INPUT', `path: ${JSON.stringify(part.slice(0, 40))} is not valid percent-encoding`)
  }
}

/** `/ui` → `/ui/`; `/` stays. Throws INVALID_INPUT for anything but a plain absolute path. */
function normalBase(path: string): string {
  if (!/^\/[A-Za-z0-9._~/-]*$/.test(path))
    throw new FoundryError(
      'INVALID_INPUT',
      `basePath: an absolute path such as /ui, got ${JSON.stringify(path.slice(0, 60))}`,
    )
  return path.endsWith('/') ? path : `${path}/`
}
