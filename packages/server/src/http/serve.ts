import { randomUUID } from 'node:crypto'
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { isIP } from 'node:net'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { FoundryError } from '@foundry/kernel'
import { checkTools, type ToolRow } from '@foundry/kernel/tools'
import { guardTransport, type ToolCallRecord } from './auth.js'
import { BodyRefused, createByteBudget, MAX_BODY_BYTES } from './body.js'
import { boundInitialize } from './initialize.js'
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from './limits.js'
import type { LocalToken } from './local-token.js'
import { createSessionTable, type SessionSlot } from './sessions.js'
import type { Principal, TokenStore } from './tokens.js'

/** The path both servers answer MCP on. */
export const MCP_PATH = '/mcp'
export { MAX_BODY_BYTES }
/** Sessions open at once by default (`HttpLimits.sessions`). */
export const MAX_SESSIONS = DEFAULT_HTTP_LIMITS.sessions
/** A session no request has used for this long is closed (a client that went away without DELETE). */
export const SESSION_IDLE_MS = 30 * 60 * 1000

export interface HttpServeOptions {
  /** The server's name in messages: foundry or marbles. */
  name: string
  /** Default 127.0.0.1. Any other than loopback needs `tokens` with at least one token. */
  host?: string
  /** Default 0 (a free port). */
  port?: number
  /** The accepted tokens; none (or an empty store) serves without authentication, on loopback only. */
  tokens?: TokenStore
  /**
   * Without `tokens`: the user's local token (`claimLocalToken`), then required from every client as
   * the principal `LOCAL`; the start-up line names its file, never its secret. On loopback only.
   */
  localToken?: LocalToken
  /** A new MCP server for one session (one client), acting for `principal`. */
  session(principal: Principal): Server
  /**
   * The tool table the sessions serve: a token calls and lists only the tools whose `role` it holds.
   * Checked at once (`checkTools`): a row without a valid role refuses to start.
   */
  tools: readonly ToolRow<never>[]
  /** One event per tool call, naming the token (never its secret). */
  onCall?: (call: ToolCallRecord) => void
  /** Other routes (the team hook endpoint): called after authentication; true when it answered. */
  route?: (
    req: IncomingMessage,
    res: ServerResponse,
    principal: Principal,
    body: () => Promise<Buffer>,
  ) => Promise<boolean>
  /**
   * Routes that check their callers themselves (the web console: a page cannot send a bearer token
   * with every file it loads): called after the Host and Origin checks, before authentication; true
   * when it answered.
   */
  publicRoute?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>
  /** How long an unused session is kept. Default `SESSION_IDLE_MS` (30 min). */
  sessionIdleMs?: number
  /** Sessions in all and per token, and body bytes in flight per token. Default `DEFAULT_HTTP_LIMITS`. */
  limits?: Partial<HttpLimits>
  /** More names clients may reach the server by (the Host header), e.g. the machine's name when bound to 0.0.0.0. */
  hostnames?: string[]
  log: (line: string) => void
}

export interface HttpServer {
  /** `http://host:port/mcp`. */
  url: string
  port: number
  /**
   * Graceful stop: refuse new requests (503), wait for requests in flight up to `deadlineMs`, then
   * close every session and the listener. The caller then closes its storage.
   */
  close(deadlineMs?: number): Promise<{ abandoned: number }>
}

/** Who a request comes from when no token is configured (loopback only). */
export const LOCAL: Principal = { name: 'local', roles: ['read', 'write', 'run'] }

/** True for 127.0.0.0/8, ::1 and localhost. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '')
  return bare === 'localhost' || bare === '::1' || (isIP(bare) === 4 && bare.startsWith('127.'))
}

/**
 * Serve MCP over Streamable HTTP (the SDK's transport): one session, with its own server, per client,
 * any number of clients at once. Every request is checked in this order, before any work: the Host
 * and Origin headers (DNS-rebinding protection: a name other than the bound address or localhost gets
 * 403), then the bearer token (missing or unknown: 401), then the body against the token's bytes in
 * flight (429 past `limits.inflightBytesPerToken` while it has others), then the session. A token
 * holds at most `limits.sessionsPerToken` sessions (its least recently used idle one is closed for a
 * new one; a request on a closed session gets 404 and the client initializes again), and a full table
 * makes room from its largest holder, so one token never shuts the others out. A session keeps a
 * bounded copy of its `initialize` (`boundInitialize`). Refuses to start on a non-loopback address
 * without tokens (INVALID_INPUT naming --host and the fix).
 */
export async function serveHttp(options: HttpServeOptions): Promise<HttpServer> {
  const roles = checkTools(options.tools)
  const host = options.host ?? '127.0.0.1'
  const auth = bearerAuth(options)
  if (!isLoopback(host) && !auth.team)
    throw new FoundryError(
      'INVALID_INPUT',
      `--host ${host} is not a loopback address and no token is configured: create one with foundry token create --role read --name <who>, or set FOUNDRY_TOKENS, or bind to 127.0.0.1`,
    )
  // Imported here, not with this module: a stdio server never loads it (its `@hono/node-server` reads
  // `globalThis.Headers` at import, which loads all of Node's fetch).
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js')
  const { log } = options
  const limits = { ...DEFAULT_HTTP_LIMITS, ...options.limits }
  const sessions = createSessionTable({
    sessions: limits.sessions,
    sessionsPerToken: Math.min(limits.sessionsPerToken, limits.sessions),
  })
  const budget = createByteBudget(limits.inflightBytesPerToken)
  const idleMs = options.sessionIdleMs ?? SESSION_IDLE_MS
  const sweeper = setInterval(() => sessions.sweep(Date.now() - idleMs), Math.min(60_000, idleMs)).unref()
  const inFlight = { count: 0, changed: () => waiters.splice(0).forEach((w) => w()) }
  const waiters: Array<() => void> = []
  let stopping = false
  let allowedHosts: string[] = []
  let allowedOrigins: string[] = []
  const http = createHttpServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof BodyRefused && !res.headersSent) return reply(res, error.status, -32600, error.message) // a route's body
      log(`request failed: ${(error as Error)?.message ?? String(error)}`)
      if (!res.headersSent) reply(res, 500, -32603, 'Internal error')
      else res.end()
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (stopping) return reply(res, 503, -32000, `the ${options.name} server is shutting down`, { connection: 'close' })
    // DNS rebinding: a page on another name that resolves here must not reach the server.
    const hostHeader = req.headers.host ?? ''
    if (!allowedHosts.includes(hostHeader.toLowerCase()))
      return reply(res, 403, -32000, `Invalid Host header: ${hostHeader.slice(0, 100)}`)
    const origin = req.headers.origin
    if (origin !== undefined && !allowedOrigins.includes(origin.toLowerCase()))
      return reply(res, 403, -32000, `Invalid Origin header: ${origin.slice(0, 100)}`)
    if (options.publicRoute && (await options.publicRoute(req, res))) return
    const principal = auth.authenticate(req)
    if (!principal) return reply(res, 401, -32001, auth.unauthorized, { 'www-authenticate': 'Bearer realm="foundry"' })
    // The body counts against the token's bytes in flight from its Content-Length on, until the answer is sent.
    let reading: ReturnType<typeof budget.read> | undefined
    const readBody = () => (reading ??= budget.read(req, principal.name)).body
    res.once('close', () => reading?.release())
    const path = (req.url ?? '/').split('?')[0]
    if (path !== MCP_PATH) {
      if (options.route && (await options.route(req, res, principal, readBody))) return
      return reply(res, 404, -32000, `Not found: MCP is served at ${MCP_PATH}`)
    }
    const id = req.headers['mcp-session-id']
    if (typeof id === 'string') {
      const session = sessions.get(id)
      if (!session) return reply(res, 404, -32001, 'Session not found: initialize again')
      if (session.principal.name !== principal.name)
        return reply(res, 403, -32000, 'Forbidden: the session belongs to another token')
      session.used = Date.now()
      if (req.method === 'GET') return session.transport.handleRequest(req, res)
      // A request being worked on keeps its session from being evicted or swept; an open GET stream does not.
      session.active++
      res.once('close', () => session.active--)
      if (req.method !== 'POST') return session.transport.handleRequest(req, res)
      const message = await parse(res, readBody)
      return message === INVALID ? undefined : session.transport.handleRequest(req, res, message)
    }
    if (req.method !== 'POST')
      return reply(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header; POST initialize first')
    const message = await parse(res, readBody)
    if (message === INVALID) return
    if (!isInitializeRequest(message))
      return reply(res, 400, -32000, 'Bad Request: no Mcp-Session-Id header; the first request must be initialize')
    const slot = sessions.admit(principal)
    if (typeof slot === 'string') return reply(res, 429, -32000, slot, { 'retry-after': '1' })
    return openSession(req, res, principal, slot, boundInitialize(message))
  }

  /**
   * A new session for `principal`, answering its `initialize`. Kept apart from `handle`, so that what
   * the session keeps for its life (the transport's callbacks) holds nothing of the request's body.
   */
  async function openSession(
    req: IncomingMessage,
    res: ServerResponse,
    principal: Principal,
    slot: SessionSlot,
    message: unknown,
  ): Promise<void> {
    const server = options.session(principal)
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => slot.fill(sid, { transport, server, principal, used: Date.now(), active: 0 }),
      enableDnsRebindingProtection: true,
      allowedHosts,
      maxRequestBodySize: MAX_BODY_BYTES,
    })
    transport.onclose = () => {
      if (transport.sessionId) sessions.remove(transport.sessionId)
    }
    res.once('close', () => slot.cancel()) // initialize failed: the place held is given back (a no-op once filled)
    await server.connect(transport)
    guardTransport(transport, principal, { roles, ...(options.onCall && { onCall: options.onCall }), inFlight })
    await transport.handleRequest(req, res, message)
  }

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject)
    http.listen(options.port ?? 0, host, () => resolve())
  })
  const port = (http.address() as { port: number }).port
  const shown = host.includes(':') ? `[${host}]` : host
  const names = [shown, 'localhost', '127.0.0.1', '[::1]', ...(options.hostnames ?? [])]
  allowedHosts = [...new Set(names.map((h) => `${h}:${port}`.toLowerCase()))]
  allowedOrigins = allowedHosts.map((h) => `http://${h}`)
  log(`serving MCP over HTTP at http://${shown}:${port}${MCP_PATH} (${auth.described})`)

  return {
    url: `http://${shown}:${port}${MCP_PATH}`,
    port,
    async close(deadlineMs = 10_000) {
      stopping = true
      clearInterval(sweeper)
      http.close()
      http.closeIdleConnections()
      await drained(inFlight, waiters, Date.now() + deadlineMs)
      const abandoned = Math.max(0, inFlight.count)
      if (abandoned) log(`shutting down: ${abandoned} request(s) still running after ${deadlineMs} ms are abandoned`)
      await sessions.closeAll()
      http.closeAllConnections()
      return { abandoned }
    },
  }
}

/**
 * Who a request comes from: the team tokens when there are some, else the local token when given,
 * else anyone on loopback as `LOCAL`; with the 401 text and the start-up line's words for it.
 */
function bearerAuth(options: Pick<HttpServeOptions, 'tokens' | 'localToken'>) {
  const team = options.tokens && options.tokens.size > 0 ? options.tokens : undefined
  const local = team ? undefined : options.localToken
  const tokens = team ?? local?.store
  return {
    team,
    authenticate(req: IncomingMessage): Principal | undefined {
      if (!tokens) return LOCAL
      const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')
      return match ? tokens.verify(match[1]!) : undefined
    },
    unauthorized: local
      ? `Unauthorized: send Authorization: Bearer <token> with the local token in ${local.file}`
      : 'Unauthorized: send Authorization: Bearer <token> with a token from foundry token create',
    described: local
      ? `the local token in ${local.file}`
      : team
        ? `${team.size} token(s)`
        : 'no authentication: loopback only',
  }
}

/** Resolves once no request is in flight, or at `until` (checked at least every 100 ms). */
async function drained(inFlight: { count: number }, waiters: Array<() => void>, until: number): Promise<void> {
  while (inFlight.count > 0 && Date.now() < until) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.min(100, until - Date.now()))
      waiters.push(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  }
}

const INVALID = Symbol('invalid')

/** The body read and parsed as JSON, or INVALID once the refusal is answered (413, 429 or a parse error). */
async function parse(res: ServerResponse, read: () => Promise<Buffer>): Promise<unknown> {
  let raw: Buffer
  try {
    raw = await read()
  } catch (error) {
    if (!(error instanceof BodyRefused)) throw error
    reply(res, error.status, -32600, error.message, error.status === 429 ? { 'retry-after': '1' } : {})
    return INVALID
  }
  try {
    return JSON.parse(raw.toString('utf8'))
  } catch {
    reply(res, 400, -32700, 'Parse error: the body is not JSON')
    return INVALID
  }
}

function reply(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }))
}
