import { createHash, timingSafeEqual } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { FoundryError } from '@foundry/kernel'

/** What a caller may do in the console: `read` browses, `write` also edits and forgets facts. */
export type ConsoleRole = 'read' | 'write'

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

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest()
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/

/**
 * The team tokens of `<root>/.foundry/tokens.json` (written by `foundry token create`: only each
 * secret's SHA-256 is stored). No file: an empty verifier. A malformed file throws INVALID_INPUT
 * naming the entry and the fix.
 */
export function projectTokens(root: string): TokenVerifier {
  const file = join(root, '.foundry', 'tokens.json')
  const entries: Array<{ principal: ConsolePrincipal; hash: Buffer }> = []
  if (existsSync(file)) {
    let data: unknown
    try {
      data = JSON.parse(readFileSync(file, 'utf8'))
    } catch (error) {
      throw new FoundryError('INVALID_INPUT', `${file}: not JSON (${(error as Error).message.slice(0, 100)}); fix it or create tokens with foundry token create`)
    }
    const tokens = (data as { tokens?: unknown })?.tokens
    if (!Array.isArray(tokens)) throw new FoundryError('INVALID_INPUT', `${file}: tokens must be a list; create tokens with foundry token create`)
    tokens.forEach((t: { name?: unknown; roles?: unknown; sha256?: unknown }, i) => {
      const where = `${file}: tokens[${i}]`
      if (typeof t?.name !== 'string' || !NAME.test(t.name)) throw new FoundryError('INVALID_INPUT', `${where}.name must be letters, digits, . _ @ - (at most 64)`)
      if (typeof t.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(t.sha256)) throw new FoundryError('INVALID_INPUT', `${where}.sha256 must be 64 hex digits; recreate the token with foundry token create`)
      if (!Array.isArray(t.roles) || !t.roles.every((r) => typeof r === 'string')) throw new FoundryError('INVALID_INPUT', `${where}.roles must be a list of read, write or run`)
      entries.push({ principal: { name: t.name, roles: t.roles as string[] }, hash: Buffer.from(t.sha256, 'hex') })
    })
  }
  return verifierOf(entries)
}

/** One token given to the console (its own `--token`): it may read and write. */
export function singleToken(secret: string, name = 'console'): TokenVerifier {
  if (secret.length < 8) throw new FoundryError('INVALID_INPUT', 'token: use at least 8 characters (a random secret, e.g. openssl rand -hex 16)')
  return verifierOf([{ principal: { name, roles: ['read', 'write'] }, hash: sha256(secret) }])
}

/** Both verifiers: the first that knows the secret answers. */
export function eitherToken(a: TokenVerifier, b: TokenVerifier): TokenVerifier {
  return { size: a.size + b.size, verify: (secret) => a.verify(secret) ?? b.verify(secret) }
}

function verifierOf(entries: Array<{ principal: ConsolePrincipal; hash: Buffer }>): TokenVerifier {
  return {
    size: entries.length,
    verify(secret) {
      const presented = sha256(secret)
      let found: ConsolePrincipal | undefined
      // Every entry is compared, found or not, so the time taken says nothing about which matched.
      for (const entry of entries) if (timingSafeEqual(presented, entry.hash) && !found) found = entry.principal
      return found
    },
  }
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
