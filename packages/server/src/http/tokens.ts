import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
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
 * position and name, never the secret) and the fix.
 */
export function loadTokens(root: string, env: NodeJS.ProcessEnv = process.env): TokenStore {
  const entries: Array<{ principal: Principal; hash: Buffer }> = []
  const file = tokenFile(root, env)
  if (existsSync(file)) for (const record of readTokenFile(file)) entries.push({ principal: { name: record.name, roles: record.roles }, hash: Buffer.from(record.sha256, 'hex') })
  const list = (env.FOUNDRY_TOKENS ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  list.forEach((entry, i) => {
    const [name = '', roles = '', ...rest] = entry.split(':')
    const secret = rest.join(':')
    const where = `FOUNDRY_TOKENS entry ${i + 1}${NAME.test(name) ? ` (${name})` : ''}`
    if (!NAME.test(name) || !secret) throw new FoundryError('INVALID_INPUT', `${where}: write it as name:role[+role]:secret, the name letters, digits, . _ @ - (at most 64)`)
    entries.push({ principal: { name, roles: parseRoles(roles, where) }, hash: sha256(secret) })
  })
  return storeOf(entries)
}

/** A store of tokens given as secrets (a console's own `--token`, say): each kept only as its hash. */
export function secretTokens(list: ReadonlyArray<{ principal: Principal; secret: string }>): TokenStore {
  return storeOf(list.map(({ principal, secret }) => ({ principal, hash: sha256(secret) })))
}

function storeOf(entries: ReadonlyArray<{ principal: Principal; hash: Buffer }>): TokenStore {
  return {
    size: entries.length,
    verify(secret) {
      const presented = sha256(secret)
      let found: Principal | undefined
      // Every entry is compared, found or not, so the time taken says nothing about which matched.
      for (const entry of entries) if (timingSafeEqual(presented, entry.hash) && !found) found = entry.principal
      return found
    },
  }
}

/** `--role read+write` or `read,write`: the roles, each checked. */
export function parseRoles(text: string, where = '--role'): Role[] {
  const roles = text.split(/[+,]/).map((r) => r.trim()).filter(Boolean)
  const bad = roles.find((r) => !(ROLES as readonly string[]).includes(r))
  if (!roles.length || bad !== undefined) throw new FoundryError('INVALID_INPUT', `${where}: role ${bad === undefined ? 'missing' : JSON.stringify(bad.slice(0, 40))}; use read, write or run (join several with +)`)
  return [...new Set(roles)] as Role[]
}

function readTokenFile(file: string): TokenRecord[] {
  let data: unknown
  try {
    data = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new FoundryError('INVALID_INPUT', `${file}: not JSON (${(error as Error).message.slice(0, 100)}); fix it or create tokens with foundry token create`)
  }
  const tokens = (data as { tokens?: unknown })?.tokens
  if (!Array.isArray(tokens)) throw new FoundryError('INVALID_INPUT', `${file}: tokens must be a list; create tokens with foundry token create`)
  return tokens.map((t: Partial<TokenRecord>, i) => {
    const where = `${file}: tokens[${i}]`
    if (typeof t?.name !== 'string' || !NAME.test(t.name)) throw new FoundryError('INVALID_INPUT', `${where}.name must be letters, digits, . _ @ - (at most 64)`)
    if (typeof t.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(t.sha256)) throw new FoundryError('INVALID_INPUT', `${where}.sha256 must be 64 hex digits; recreate the token with foundry token create`)
    const roles = parseRoles(Array.isArray(t.roles) ? t.roles.join('+') : '', `${where}.roles`)
    return { name: t.name, roles, sha256: t.sha256, created: String(t.created ?? '') }
  })
}

/**
 * Create a token: a random secret whose SHA-256 is added to the token file (written 0600, atomically).
 * Returns the secret, which is nowhere else: the caller prints it once. A name already in the file is
 * refused (CONFLICT): revoke by removing its line.
 */
export async function createToken(root: string, name: string, roles: Role[], env: NodeJS.ProcessEnv = process.env): Promise<{ secret: string; record: TokenRecord; file: string }> {
  if (!NAME.test(name)) throw new FoundryError('INVALID_INPUT', `--name must be letters, digits, . _ @ - (at most 64), got ${JSON.stringify(name.slice(0, 70))}`)
  const file = tokenFile(root, env)
  const existing = existsSync(file) ? readTokenFile(file) : []
  if (existing.some((t) => t.name === name)) throw new FoundryError('CONFLICT', `--name: a token named ${name} exists in ${file}; pick another name or remove its entry first`)
  const secret = `fdy_${randomBytes(24).toString('base64url')}`
  const record: TokenRecord = { name, roles, sha256: sha256(secret).toString('hex'), created: new Date().toISOString() }
  await mkdir(dirname(file), { recursive: true })
  const temp = `${file}.${process.pid}.tmp`
  await writeFile(temp, `${JSON.stringify({ tokens: [...existing, record] }, null, 2)}\n`, { mode: 0o600 })
  await rename(temp, file)
  return { secret, record, file }
}

/** The token file's records as stored (for `foundry token list`): names, roles, dates; no secrets exist there. */
export async function listTokens(root: string, env: NodeJS.ProcessEnv = process.env): Promise<TokenRecord[]> {
  const file = tokenFile(root, env)
  return existsSync(file) ? (await readFile(file, 'utf8'), readTokenFile(file)) : []
}
