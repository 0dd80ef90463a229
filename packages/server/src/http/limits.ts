import { FoundryError } from '@foundry/kernel'

/** What one HTTP server holds at most: sessions in all and per token, and request bytes being read per token. */
export interface HttpLimits {
  /** Sessions open at once, all tokens together. */
  sessions: number
  /** Sessions one token may hold; past it the token's oldest idle session is closed for the new one. */
  sessionsPerToken: number
  /** Request body bytes one token may have in flight (declared or read, not yet answered); past it 429. */
  inflightBytesPerToken: number
}

/** The defaults: 1,024 sessions, 32 a token, 16 MiB of bodies in flight a token (one 10 MiB body fits). */
export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = {
  sessions: 1024,
  sessionsPerToken: 32,
  inflightBytesPerToken: 16 * 1024 * 1024,
}

const VARIABLES: ReadonlyArray<[keyof HttpLimits, string, number]> = [
  ['sessions', 'FOUNDRY_HTTP_SESSIONS', 1],
  ['sessionsPerToken', 'FOUNDRY_HTTP_SESSIONS_PER_TOKEN', 1],
  ['inflightBytesPerToken', 'FOUNDRY_HTTP_INFLIGHT_BYTES', 64 * 1024],
]

/**
 * The limits from `FOUNDRY_HTTP_SESSIONS`, `FOUNDRY_HTTP_SESSIONS_PER_TOKEN` and
 * `FOUNDRY_HTTP_INFLIGHT_BYTES`, each defaulting to `DEFAULT_HTTP_LIMITS`. A value that is not a
 * whole number at or above its floor throws INVALID_INPUT naming the variable.
 */
export function httpLimits(env: NodeJS.ProcessEnv = process.env): HttpLimits {
  const limits = { ...DEFAULT_HTTP_LIMITS }
  for (const [key, name, floor] of VARIABLES) {
    const text = env[name]?.trim()
    if (!text) continue
    const value = Number(text)
    if (!Number.isSafeInteger(value) || value < floor)
      throw new FoundryError(
        'INVALID_INPUT',
        `${name} must be a whole number of at least ${floor}, got ${JSON.stringify(text.slice(0, 40))}; unset it for the default ${DEFAULT_HTTP_LIMITS[key]}`,
      )
    limits[key] = value
  }
  return limits
}
