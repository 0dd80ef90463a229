import { existsSync } from 'node:fs'
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { FoundryError, type Storage } from '@foundry/kernel'
import type { Role } from '@foundry/kernel/tools'
import {
  checkRecord,
  entryOf,
  envTokens,
  liveStore,
  loadTokens,
  newToken,
  readTokenFile,
  tokenFile,
  type TokenEntry,
  type TokenRecord,
  type TokenStore,
} from './tokens.js'

/** Where a project keeps its team tokens, and what `foundry token` and the team servers do with them. */
export interface TokenBook {
  /** Where the tokens live, for messages: the token file, or the storage's location of them. */
  readonly where: string
  /** Add a token; returns its secret (shown once, stored nowhere) and its record. CONFLICT when the name is taken. */
  create(name: string, roles: Role[]): Promise<{ secret: string; record: TokenRecord }>
  /** Every stored record (names, roles, dates; no secret is stored), oldest first. */
  list(): Promise<TokenRecord[]>
  /** Remove the token; returns its record. NOT_FOUND when there is none of that name. */
  revoke(name: string): Promise<TokenRecord>
  /**
   * The tokens a team server accepts (these and `FOUNDRY_TOKENS`'), kept current while it runs: a
   * token created or revoked elsewhere is accepted or refused within a second (by a server that started
   * with team tokens: one without them requires the local token until restarted). `close` stops following.
   */
  open(): Promise<TokenStore & { close(): void }>
}

/** What a project offers for its tokens: its root, its storage, and whether the storage is shared over the network. */
export interface TokenSite {
  root: string
  storage: Storage
  /** The storage is reached by several machines (a database server): the tokens live in it. */
  networked?: boolean
}

/**
 * The project's token book: in its storage when the storage is networked (every server of the team
 * reads the same tokens, and hears of a change through the storage's `onChange`), else in
 * `.foundry/tokens.json` (or `FOUNDRY_TOKEN_FILE`, which always wins).
 */
export function tokenBook(site: TokenSite, env: NodeJS.ProcessEnv = process.env): TokenBook {
  return site.networked && !env.FOUNDRY_TOKEN_FILE ? storageTokenBook(site.storage, env) : fileTokenBook(site.root, env)
}

const notFound = (name: string, where: string) =>
  new FoundryError(
    'NOT_FOUND',
    `token ${name}: there is no token of that name in ${where}; foundry token list shows the names`,
  )
const taken = (name: string, where: string) =>
  new FoundryError(
    'CONFLICT',
    `--name: a token named ${name} exists in ${where}; pick another name or revoke it first (foundry token revoke ${name})`,
  )

/** The tokens in the token file: every change rewrites it whole, 0600, atomically (a temporary file renamed over it). */
function fileTokenBook(root: string, env: NodeJS.ProcessEnv): TokenBook {
  const file = tokenFile(root, env)
  const read = () => (existsSync(file) ? readTokenFile(file) : [])
  const write = async (records: TokenRecord[]) => {
    await mkdir(dirname(file), { recursive: true })
    const temp = `${file}.${process.pid}.tmp`
    await writeFile(temp, `${JSON.stringify({ tokens: records }, null, 2)}\n`, { mode: 0o600 })
    await rename(temp, file)
  }
  return {
    where: file,
    async create(name, roles) {
      const made = newToken(name, roles)
      const existing = read()
      if (existing.some((t) => t.name === name)) throw taken(name, file)
      await write([...existing, made.record])
      return made
    },
    list: async () => read(),
    async revoke(name) {
      const existing = read()
      const record = existing.find((t) => t.name === name)
      if (!record) throw notFound(name, file)
      await write(existing.filter((t) => t !== record))
      return record
    },
    open: async () => ({ ...loadTokens(root, env), close: () => undefined }),
  }
}

/** The collection holding a networked project's tokens, one record per token, keyed by its name. */
const COLLECTION = 'server.tokens'
/** How often a server reads the tokens' revision even without a notification (one lost while reconnecting). */
const BACKSTOP_MS = 5_000

/** Token names may hold `@`, which keys do not: the key is the name, URI-encoded. */
const keyOf = (name: string) => encodeURIComponent(name)

function storageTokenBook(storage: Storage, env: NodeJS.ProcessEnv): TokenBook {
  const where = storage.locate(COLLECTION, 'x').replace(/\/x$/, '')
  const read = async (): Promise<TokenRecord[]> =>
    (await storage.list(COLLECTION))
      .map((value, i) => checkRecord(value, `${where}[${i}]`))
      .sort((a, b) => a.created.localeCompare(b.created) || a.name.localeCompare(b.name))
  return {
    where,
    async create(name, roles) {
      const made = newToken(name, roles)
      await storage.exclusive(async () => {
        if ((await storage.get(COLLECTION, keyOf(name))) !== undefined) throw taken(name, where)
        await storage.put(COLLECTION, keyOf(name), { ...made.record })
      })
      return made
    },
    list: read,
    async revoke(name) {
      const value = await storage.get(COLLECTION, keyOf(name))
      if (value === undefined || !(await storage.delete(COLLECTION, keyOf(name)))) throw notFound(name, where)
      return checkRecord(value, `${where}/${keyOf(name)}`)
    },
    async open() {
      const fixed = envTokens(env)
      let entries: TokenEntry[] = []
      let revision = ''
      let running: Promise<void> | undefined
      let again = false
      // Single flight: a change heard while reading is read again after, so the last change always lands.
      const refresh = (): Promise<void> => {
        if (running) return ((again = true), running)
        running = (async () => {
          do {
            again = false
            const now = await storage.revision(COLLECTION)
            if (now !== revision) {
              entries = (await read()).map(entryOf)
              revision = now
            }
          } while (again)
        })().finally(() => (running = undefined))
        return running
      }
      await refresh()
      const quietly = () => void refresh().catch(() => undefined)
      const off = storage.onChange?.(
        (change) => 'collection' in change && change.collection === COLLECTION && quietly(),
      )
      const timer = setInterval(quietly, BACKSTOP_MS)
      timer.unref()
      const store = liveStore(() => [...entries, ...fixed])
      return {
        get size() {
          return store.size
        },
        verify: store.verify,
        close() {
          off?.()
          clearInterval(timer)
        },
      }
    },
  }
}
