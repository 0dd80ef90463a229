import type { IncomingMessage, ServerResponse } from 'node:http'
import { isFoundryError } from '@foundry/kernel'
import { grants, type Principal } from '@foundry/server'
import { signalAndWait, type MarblesHost } from './host.js'

/** Where `marbles mcp --http` takes signals from outside (a webhook, a person's tool): `POST /runs/<runId>/signals/<name>`. */
const ROUTE = /^\/runs\/([^/]+)\/signals\/([^/]+)$/

const STATUS: Record<string, number> = { NOT_FOUND: 404, CONFLICT: 409, INVALID_INPUT: 400 }

/**
 * The signal route: the body is the signal's data as JSON (empty: null), checked against the wait's
 * schema; a token with the run role may signal any run of the state (the engine behind this server
 * resumes it). Answers 200 with the run, or `{ error }` with 400, 403, 404 or 409.
 */
export function signalRoute(host: MarblesHost) {
  return async (
    req: IncomingMessage,
    res: ServerResponse,
    principal: Principal,
    body: () => Promise<Buffer>,
  ): Promise<boolean> => {
    const match = ROUTE.exec((req.url ?? '/').split('?')[0]!)
    if (!match) return false
    if (req.method !== 'POST')
      return send(res, 405, { error: 'POST /runs/<runId>/signals/<name> with the data as a JSON body' })
    if (!grants(principal).has('run'))
      return send(res, 403, { error: `the token ${principal.name} lacks the run role signals need` })
    const [runId, name] = [decodeURIComponent(match[1]!), decodeURIComponent(match[2]!)]
    const text = (await body()).toString('utf8').trim()
    let data: unknown = null
    try {
      if (text) data = JSON.parse(text)
    } catch (error) {
      return send(res, 400, { error: `body: not JSON: ${(error as Error).message}` })
    }
    try {
      const info = await signalAndWait(host.engine, host.state, runId, name, data)
      return send(res, 200, {
        runId,
        name: info.name,
        status: info.status,
        ...(info.waitFor && { waitingFor: info.waitFor.signal }),
      })
    } catch (error) {
      if (!isFoundryError(error)) throw error
      return send(res, STATUS[error.code] ?? 500, { error: error.message })
    }
  }
}

function send(res: ServerResponse, status: number, value: unknown): true {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(value))
  return true
}
