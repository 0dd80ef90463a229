import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { FoundryError } from '@foundry/kernel'
import { ROLES, type Role } from '@foundry/kernel/tools'

/** Who a request comes from: the token's name (never its secret) and its roles. */
export interface Principal {
  name: string
  roles: Role[]
}

/** One line of `.foundry/tokens.json`: the secret is never stored, only its SHA-256. */
export interface TokenRecord {
  name: string
  roles: Role[]
  sha256: string
  created: string
}

/** The tokens a server accepts. */
export interface TokenStore {
  /** How many tokens there are (0 means authentication is not configured). */
  readonly size: number
  /** The token's principal when `secret` is one of them, else undefined. Compared in constant time. */
  verify(secret: string): Principal | undefined
}

/** `<root>/.foundry/tokens.json`, or `FOUNDRY_TOKEN_FILE` when set. */
export function tokenFile(root: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.FOUNDRY_TOKEN_FILE || join(root, '.foundry', 'tokens.json')
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest()

/**
 * The tokens from the token file and from `FOUNDRY_TOKENS` (`name:role[+role]:secret`, comma-separated;
 * only hashes are kept in memory). A malformed entry throws INVALID_INPUT naming the entry (by
 * position and name, never the secret) and the fix. The file is read again whenever it changes (a
 * stat per request: inode, size and times), so a token revoked there is refused by the next request;
 * a file that no longer reads accepts none of its tokens until it is fixed (fail closed).
 */
export function loadTokens(root: string, env: NodeJS.ProcessEnv = process.env): TokenStore {
  const fixed = envTokens(env)
  const file = watchedTokenFile(tokenFile(root, env))
  return liveStore(() => [...file(), ...fixed])
}

/** The `FOUNDRY_TOKENS` entries, as hashes; INVALID_INPUT naming a malformed entry by position and name. */
export function envTokens(env: NodeJS.ProcessEnv): TokenEntry[] {
  const list = (env.FOUNDRY_TOKENS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return list.map((entry, i) => {
    const [name = '', roles = '', ...rest] = entry.split(':')
    const secret = rest.join(':')
    const where = `FOUNDRY_TOKENS entry ${i + 1}${NAME.test(name) ? ` (${name})` : ''}`
    if (!NAME.test(name) || !secret)
      throw new FoundryError(
        'INVALID_INPUT',
        `${where}: write it as name:role[+role]:secret, the name letters, digits, . _ @ - (at most 64)`,
      )
    return { principal: { name, roles: parseRoles(roles, where) }, hash: sha256(secret) }
  })
}

/** An accepted token: who it is, and the SHA-256 of its secret. */
export interface TokenEntry {
  principal: Principal
  hash: Buffer
}

/** A stored record as an accepted token. */
export const entryOf = (record: TokenRecord): TokenEntry => ({
  principal: { name: record.name, roles: record.roles },
  hash: Buffer.from(record.sha256, 'hex'),
})

/** The token file's entries, read at once (a malformed file throws) and again whenever its stat changes. */
function watchedTokenFile(file: string): () => TokenEntry[] {
  const stamp = () => {
    try {
      const s = statSync(file, { bigint: true })
      return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`
    } catch {
      return ''
    }
  }
  let seen = stamp()
  let entries = seen ? readTokenFile(file).map(entryOf) : []
  return () => {
    const now = stamp()
    if (now !== seen) {
      seen = now
      try {
        entries = now ? readTokenFile(file).map(entryOf) : []
      } catch {
        entries = []
      }
    }
    return entries
  }
}

/** A store over entries that may change: `current` is asked on every check. */
export function liveStore(current: () => readonly TokenEntry[]): TokenStore {
  return {
    get size() {
      return current().length
    },
    verify: (secret) => verifyIn(current(), secret),
  }
}

/** A store of tokens given as secrets (a console's own `--token`, say): each kept only as its hash. */
export function secretTokens(list: ReadonlyArray<{ principal: Principal; secret: string }>): TokenStore {
  return storeOf(list.map(({ principal, secret }) => ({ principal, hash: sha256(secret) })))
}

function storeOf(entries: readonly TokenEntry[]): TokenStore {
  return { size: entries.length, verify: (secret) => verifyIn(entries, secret) }
}

function verifyIn(entries: readonly TokenEntry[], secret: string): Principal | undefined {
  const presented = sha256(secret)
  let found: Principal | undefined
  // Every entry is compared, found or not, so the time taken says nothing about which matched.
  for (const entry of entries) if (timingSafeEqual(presented, entry.hash) && !found) found = entry.principal
  return found
}

/** `--role read+write` or `read,write`: the roles, each checked. */
export function parseRoles(text: string, where = '--role'): Role[] {
  const roles = text
    .split(/[+,]/)
    .map((r) => r.trim())
    .filter(Boolean)
  const bad = roles.find((r) => !(ROLES as readonly string[]).includes(r))
  if (!roles.length || bad !== undefined)
    throw new FoundryError(
      'INVALID_INPUT',
      `${where}: role ${bad === undefined ? 'missing' : JSON.stringify(bad.slice(0, 40))}; use read, write or run (join several with +)`,
    )
  return [...new Set(roles)] as Role[]
}

/** The token file's records, checked; INVALID_INPUT naming the file, the entry and the fix. */
export function readTokenFile(file: string): TokenRecord[] {
  let data: unknown
  try {
    data = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new FoundryError(
      'INVALID_INPUT',
      `${file}: not JSON (${(error as Error).message.slice(0, 100)}); fix it or create tokens with foundry token create`,
    )
  }
  const tokens = (data as { tokens?: unknown })?.tokens
  if (!Array.isArray(tokens))
    throw new FoundryError('INVALID_INPUT', `${file}: tokens must be a list; create tokens with foundry token create`)
  return tokens.map((t: unknown, i) => checkRecord(t, `${file}: tokens[${i}]`))
}

/** A stored token record, checked: INVALID_INPUT naming `where`, the field and the fix. */
export function checkRecord(value: unknown, where: string): TokenRecord {
  const t = (value ?? {}) as Partial<TokenRecord>
  if (typeof t.name !== 'string' || !NAME.test(t.name))
    throw new FoundryError('INVALID_INPUT', `${where}.name must be letters, digits, . _ @ - (at most 64)`)
  if (typeof t.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(t.sha256))
    throw new FoundryError(
      'INVALID_INPUT',
      `${where}.sha256 must be 64 hex digits; recreate the token with foundry token create`,
    )
  const roles = parseRoles(Array.isArray(t.roles) ? t.roles.join('+') : '', `${where}.roles`)
  return { name: t.name, roles, sha256: t.sha256, created: String(t.created ?? '') }
}

/**
 * A new token for `name`: a random secret, returned to be printed once and stored nowhere, and the
 * record that keeps only its SHA-256. INVALID_INPUT when the name is not one.
 */
export function newToken(name: string, roles: Role[]): { secret: string; record: TokenRecord } {
  if (!NAME.test(name))
    throw new FoundryError(
      'INVALID_INPUT',
      `--name must be letters, digits, . _ @ - (at most 64), got ${JSON.stringify(name.slice(0, 70))}`,
    )
  const secret = `fdy_${randomBytes(24).toString('base64url')}`
  return { secret, record: { name, roles, sha256: sha256(secret).toString('hex'), created: new Date().toISOString() } }
}
