import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { link, lstat, mkdir, open, readFile, rename, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'
import { FoundryError } from '@foundry/kernel'
import { LOCAL } from './serve.js'
import { secretTokens, type TokenStore } from './tokens.js'

/** The local token's shape: `fdl_` and 32 base64url characters. */
const SHAPE = /^fdl_[A-Za-z0-9_-]{32}$/

/** The token a loopback server without team tokens requires, and where it is written for local clients. */
export interface LocalToken {
  /** The file holding the secret (mode 0600, in a folder private to the user): what to tell the user. */
  file: string
  /** The secret itself: for clients of this user, never for a log. */
  secret: string
  /** The store that accepts only it, as `LOCAL` (every role). */
  store: TokenStore
}

/**
 * The user's local token at `file` (the per-user runtime folder the hook socket uses, e.g.
 * `$XDG_RUNTIME_DIR/foundry/http.token`): the one already there when it is a regular file of this
 * user with mode 0600 and a well-formed secret, else a new random one written there with mode 0600.
 * So servers of one user share it, and a restart keeps clients working; deleting the file makes a new
 * one at the next start. The folder is created with mode 0700; a folder or file that is another
 * user's, a symlink, or open to group or others throws UNAVAILABLE naming it and the fix (it is never
 * chmod-ed or replaced).
 */
export async function claimLocalToken(file: string): Promise<LocalToken> {
  const dir = dirname(file)
  await mkdir(dir, { recursive: true, mode: 0o700 })
  await assertPrivate(dir, 'folder')
  const present = await lstat(file).catch(() => undefined)
  const secret = (present && (await readPrivate(file))) || (await writeNew(file, present !== undefined))
  return { file, secret, store: secretTokens([{ principal: LOCAL, secret }]) }
}

async function readPrivate(file: string): Promise<string | undefined> {
  const stats = await lstat(file).catch(() => undefined)
  if (!stats) return undefined
  await assertPrivate(file, 'file')
  const text = (await readFile(file, 'utf8')).trim()
  return SHAPE.test(text) ? text : undefined
}

/**
 * A new secret at `file`. Written to a fresh temporary name first (O_EXCL: nothing planted there is
 * followed), then linked into place, so that of two servers starting at once one token wins and both
 * use it; `replace` (a malformed file of the user's is there) renames it over instead.
 */
async function writeNew(file: string, replace: boolean): Promise<string> {
  const secret = `fdl_${randomBytes(24).toString('base64url')}`
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600)
  try {
    await handle.writeFile(`${secret}\n`)
  } finally {
    await handle.close()
  }
  try {
    if (replace) await rename(temp, file)
    else await link(temp, file)
    return secret
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    const theirs = await readPrivate(file) // another server wrote it first
    if (!theirs)
      throw new FoundryError(
        'UNAVAILABLE',
        `Local token refused: ${file} appeared while it was being written and holds no token; remove it and start again`,
      )
    return theirs
  } finally {
    await unlink(temp).catch(() => undefined) // gone already after a rename
  }
}

/** Throw unless `path` is a real folder or regular file of this user, closed to group and others. POSIX only. */
async function assertPrivate(path: string, kind: 'folder' | 'file'): Promise<void> {
  if (process.platform === 'win32') return
  const stats = await lstat(path)
  const uid = process.getuid?.() ?? -1
  const why = (kind === 'folder' ? !stats.isDirectory() : !stats.isFile())
    ? `is not a ${kind === 'folder' ? 'folder' : 'regular file'} (a symlink?)`
    : stats.uid !== uid
      ? `belongs to uid ${stats.uid}, not ${uid}`
      : stats.mode & 0o077
        ? `is open to group or others (mode ${(stats.mode & 0o777).toString(8)})`
        : undefined
  if (why)
    throw new FoundryError(
      'UNAVAILABLE',
      `Local token refused: ${path} ${why}; remove it, or make it yours with mode ${kind === 'folder' ? '0700' : '0600'}`,
    )
}
