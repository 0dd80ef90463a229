import { FoundryError, isFoundryError } from '@foundry/kernel'
import { redactText, redactUrl } from './url.js'

/** Network failures node reports by `code` before any Postgres answer. */
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
])

/** The SQLSTATE (`42P01`) or node error code of a failure, when it has one. */
export function pgCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

/**
 * Turn a Postgres or network failure into a FoundryError naming the database (password redacted)
 * and what to do: UNAVAILABLE for an unreachable server, refused credentials, a missing database,
 * a lock wait past the timeout or a conflict to retry; INVALID_INPUT for text Postgres cannot hold.
 * A FoundryError passes unchanged; anything else (a bug) too, with the password removed from its message.
 */
export function translate(error: unknown, url: string, timeout?: number): unknown {
  if (isFoundryError(error)) return error
  const code = pgCode(error)
  const where = redactUrl(url)
  const raw = error instanceof Error ? error.message : String(error)
  const detail = redactText(raw, url)
  const wrap = (kind: 'UNAVAILABLE' | 'INVALID_INPUT', message: string) =>
    new FoundryError(kind, message, { cause: error })
  if (code === '55P03')
    return wrap(
      'UNAVAILABLE',
      `${where}: waited more than ${timeout ?? '?'} ms for another process's exclusive write section (it holds the section, and each collection it wrote, until it commits); gave up. Retry, or raise the postgres storage's timeout`,
    )
  if (code === '28P01' || code === '28000')
    return wrap(
      'UNAVAILABLE',
      `${where}: the server refused the credentials (${detail}): check the user and password in the storage url or FOUNDRY_DATABASE_URL`,
    )
  if (code === '3D000')
    return wrap(
      'UNAVAILABLE',
      `${where}: ${detail}: create the database (createdb), or fix the database name in the url`,
    )
  if (code === '40P01' || code === '40001')
    return wrap('UNAVAILABLE', `${where}: the write conflicted with another process's (${detail}): retry`)
  if (code === '22021' || code === '22P05' || code === '54000')
    return wrap(
      'INVALID_INPUT',
      `${where}: PostgreSQL cannot store this text (${detail}): remove NUL (\\0) characters, or shorten it`,
    )
  if (
    (code && (NETWORK.has(code) || /^(08|53|57P)/.test(code))) ||
    /Connection terminated|connection timeout|Client has encountered a connection error/i.test(raw)
  )
    return wrap(
      'UNAVAILABLE',
      `${where} cannot be used right now (${detail}): check that the server is running and reachable, then retry`,
    )
  if (error instanceof Error && detail !== raw) {
    error.message = detail
    if (error.stack) error.stack = redactText(error.stack, url)
  }
  return error
}
