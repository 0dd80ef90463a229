import { FoundryError } from '@foundry/kernel'
import { loadTokens, secretTokens } from '@foundry/server'

/** What a caller may do in the console: `read` browses, `write` also edits and forgets facts, `run` dispatches, cancels and re-runs runs. */
export type ConsoleRole = 'read' | 'write' | 'run'

/** Who a request comes from: a token's name (never its secret) and the roles it holds. */
export interface ConsolePrincipal {
  name: string
  roles: readonly string[]
}

/**
 * The tokens a console accepts, by secret. `@foundry/mcp`'s team token store has this shape, so a
 * server that mounts the console passes its own; `projectTokens` reads the project's file.
 */
export interface TokenVerifier {
  /** How many tokens there are; 0 means no team tokens are configured. */
  readonly size: number
  /** The principal of `secret`, or undefined when it is none of them. */
  verify(secret: string): ConsolePrincipal | undefined
}

/**
 * The project's team tokens, as its team servers read them (`@foundry/server`'s `loadTokens`:
 * `.foundry/tokens.json` or `FOUNDRY_TOKEN_FILE`, and `FOUNDRY_TOKENS`). None: an empty verifier. A
 * malformed file throws INVALID_INPUT naming the entry and the fix.
 */
export function projectTokens(root: string): TokenVerifier {
  return loadTokens(root)
}

/** One token given to the console (its own `--token`): it may do everything (read, write, run), as the user's local token may. */
export function singleToken(secret: string, name = 'console'): TokenVerifier {
  if (secret.length < 8)
    throw new FoundryError(
      'INVALID_INPUT',
      'token: use at least 8 characters (a random secret, e.g. openssl rand -hex 16)',
    )
  return secretTokens([{ principal: { name, roles: ['read', 'write', 'run'] }, secret }])
}

/** Both verifiers: the first that knows the secret answers. */
export function eitherToken(a: TokenVerifier, b: TokenVerifier): TokenVerifier {
  return { size: a.size + b.size, verify: (secret) => a.verify(secret) ?? b.verify(secret) }
}

/** True when the principal holds `role`: write and run each include read. */
export function holds(principal: ConsolePrincipal, role: ConsoleRole): boolean {
  if (role === 'read') return principal.roles.some((r) => r === 'read' || r === 'write' || r === 'run')
  return principal.roles.includes(role)
}

/** Who browses when no team token is configured and none is sent: read only, on loopback. */
export const LOCAL_READER: ConsolePrincipal = { name: 'local', roles: ['read'] }

/** The bearer secret of a request, or undefined when it sends none. */
export function bearerOf(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')
  return m?.[1]
}
