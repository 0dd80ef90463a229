import type { IncomingMessage, ServerResponse } from 'node:http'
import { FoundryError, isFoundryError } from '@foundry/kernel'

/** The largest request body the API reads (an edited fact is a few KB); a larger one gets 413. */
export const MAX_BODY_BYTES = 64 * 1024

/**
 * The Content-Security-Policy of every answer: scripts and styles from the console's own files only
 * (no inline script, no eval), no frames, no plugins, data only from this origin.
 */
export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

/** Headers every answer carries. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(value)
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...headers,
  })
  res.end(body)
}

const STATUS: Record<FoundryError['code'], number> = {
  INVALID_INPUT: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  CORRUPT: 500,
  UNSUPPORTED: 400,
  UNAVAILABLE: 503,
}

/** `{ error: { code, message } }`: a FoundryError's one line, or a generic one for anything else (logged, never sent). */
export function sendError(res: ServerResponse, error: unknown, log: (line: string) => void): void {
  if (isFoundryError(error))
    return sendJson(res, STATUS[error.code] ?? 500, { error: { code: error.code, message: error.message } })
  log(`console: request failed: ${(error as Error)?.stack ?? String(error)}`)
  sendJson(res, 500, { error: { code: 'INTERNAL', message: 'The console failed to answer; see the server log' } })
}

/** The request's JSON body, an object. Throws INVALID_INPUT for a body too large, not JSON or not an object. */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) throw new FoundryError('INVALID_INPUT', `request body: at most ${MAX_BODY_BYTES} bytes`)
    chunks.push(chunk)
  }
  let value: unknown
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}')
  } catch {
    throw new FoundryError('INVALID_INPUT', 'request body: send a JSON object (content-type: application/json)')
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new FoundryError('INVALID_INPUT', 'request body: send a JSON object')
  return value as Record<string, unknown>
}
