import { createHash } from 'node:crypto'
import { lstat } from 'node:fs/promises'
import { connect } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import { currentUid, privateRuntimeDir } from '@foundry/server/runtime'
import { EXIT_ERROR, EXIT_OK } from './io.js'
import type { HookName } from './names.js'

export { currentUid, localTokenPath } from '@foundry/server/runtime'

/**
 * The hook socket protocol, version 1. A long-running process that already holds the project open
 * (`foundry mcp`, through `serveHooks`) answers hooks over a local socket, so a hook process skips
 * loading the kernel and opening the index. Without a server, hooks run in their own process.
 *
 * - Address: `hookSocketPath(root)`, one per project root and user: `hooks-<first 16 hex of
 *   sha256(root)>.sock` in the user's private folder (`hookSocketDir()`): `$XDG_RUNTIME_DIR/foundry/`
 *   when XDG_RUNTIME_DIR is a folder the user owns, else `<tmpdir>/foundry-<uid>/`. The folder must
 *   be a real folder (not a symlink) owned by the user, with no group or other permission bits: the
 *   server creates it with mode 0700, and refuses to serve (it throws; hooks then run in their own
 *   processes) when it is anything else, never chmod-ing it; it replaces a stale socket only when the
 *   user owns it. The client connects only when the folder passes that check and the socket is a
 *   socket the user owns; otherwise it runs the hook itself. So another local user can neither take
 *   the address nor answer a prompt's context. These checks are POSIX-only: on Windows the address is
 *   the named pipe `\\.\pipe\foundry-hooks-<id>`, unchecked.
 * - Request: one line of JSON, `{"v":1,"hook":"prompt-context","stdin":"<the event JSON>"}`, then
 *   the client ends its side.
 * - Answer: one line of JSON, `{"v":1,"stdout":"…","stderr":"…","exitCode":0}`, exactly what the
 *   hook would print and exit with; then the server closes. The client exits 0 for `exitCode` 0 and
 *   1 for any other: no answer can make a hook exit 2 and block the session. A server that will not answer (an old
 *   version, a hook it does not serve) replies `{"v":1,"unavailable":"<why>"}`.
 * - The client runs the hook itself when there is no socket, the socket or its folder is not private
 *   to the user, the connection is refused, the answer is malformed or `unavailable`, or none arrives
 *   within the timeout.
 */
export const PROTOCOL_VERSION = 1
/** Longest wait for an answer before running the hook in process. */
export const ANSWER_TIMEOUT_MS = 2000

export interface HookRequest {
  v: number
  hook: string
  stdin: string
}

export interface HookAnswer {
  stdout: string
  stderr: string
  exitCode: number
}

/**
 * The user's private folder for hook sockets (see the address above): `@foundry/server`'s private
 * runtime folder, which also holds the local token of loopback HTTP servers (`localTokenPath()`).
 */
export function hookSocketDir(): string {
  return privateRuntimeDir()
}

/** Where the hook server of the project at `root` listens. */
export function hookSocketPath(root: string): string {
  const id = createHash('sha256').update(resolve(root)).digest('hex').slice(0, 16)
  return process.platform === 'win32' ? `\\\\.\\pipe\\foundry-hooks-${id}` : join(hookSocketDir(), `hooks-${id}.sock`)
}

/**
 * Why `dir` may not hold the hook socket (missing, not a real folder, another user's, open to group or
 * others), or `undefined` when it may. POSIX only.
 */
export async function unsafeSocketDir(dir: string): Promise<string | undefined> {
  try {
    const stats = await lstat(dir)
    if (!stats.isDirectory()) return `${dir} is not a folder (a symlink or a file)`
    if (stats.uid !== currentUid()) return `${dir} belongs to uid ${stats.uid}, not ${currentUid()}`
    if (stats.mode & 0o077) return `${dir} is open to group or others (mode ${(stats.mode & 0o777).toString(8)})`
    return undefined
  } catch (error) {
    return `cannot inspect ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`
  }
}

/** True when the user's own server may be listening at `path`: a socket the user owns, in a private folder. */
async function isPrivateSocket(path: string): Promise<boolean> {
  if (process.platform === 'win32') return true // named pipes: unchecked (see the address above)
  if (await unsafeSocketDir(dirname(path))) return false
  try {
    const stats = await lstat(path)
    return stats.isSocket() && stats.uid === currentUid()
  } catch {
    return false
  }
}

/** Ask the project's hook server to run `hook`; `undefined` when no server of this user answers (run it yourself). */
export async function askServer(
  root: string,
  hook: HookName,
  stdin: string,
  timeoutMs = ANSWER_TIMEOUT_MS,
): Promise<HookAnswer | undefined> {
  const path = hookSocketPath(root)
  if (!(await isPrivateSocket(path))) return undefined
  return new Promise((settle) => {
    let received = ''
    const socket = connect(path)
    const done = (answer: HookAnswer | undefined) => {
      clearTimeout(timer)
      socket.destroy()
      settle(answer)
    }
    const timer = setTimeout(() => done(undefined), timeoutMs)
    socket.setEncoding('utf8')
    socket.on('connect', () =>
      socket.end(`${JSON.stringify({ v: PROTOCOL_VERSION, hook, stdin } satisfies HookRequest)}\n`),
    )
    socket.on('data', (chunk: string) => {
      received += chunk
      const end = received.indexOf('\n')
      if (end >= 0) done(parseAnswer(received.slice(0, end)))
    })
    socket.on('error', () => done(undefined))
    socket.on('close', () => done(parseAnswer(received)))
  })
}

/** A well-formed answer line, or `undefined`. */
export function parseAnswer(line: string): HookAnswer | undefined {
  try {
    const value = JSON.parse(line) as Partial<HookAnswer> & { v?: unknown }
    if (
      value.v !== PROTOCOL_VERSION ||
      typeof value.stdout !== 'string' ||
      typeof value.stderr !== 'string' ||
      typeof value.exitCode !== 'number'
    )
      return undefined
    // Whatever the server says, a hook exits 0 or 1: exit 2 would block the session (io.ts).
    return { stdout: value.stdout, stderr: value.stderr, exitCode: value.exitCode === EXIT_OK ? EXIT_OK : EXIT_ERROR }
  } catch {
    return undefined
  }
}
