import { createHash } from 'node:crypto'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { HookName } from './names.js'

/**
 * The hook socket protocol, version 1. A long-running process that already holds the project open
 * (`foundry mcp`, through `serveHooks`) answers hooks over a local socket, so a hook process skips
 * loading the kernel and opening the index. Without a server, hooks run in their own process.
 *
 * - Address: `hookSocketPath(root)`, one per project root: a Unix socket in the temporary folder
 *   (`foundry-hooks-<first 16 hex of sha256(root)>.sock`), a named pipe on Windows.
 * - Request: one line of JSON, `{"v":1,"hook":"prompt-context","stdin":"<the event JSON>"}`, then
 *   the client ends its side.
 * - Answer: one line of JSON, `{"v":1,"stdout":"…","stderr":"…","exitCode":0}`, exactly what the
 *   hook would print and exit with; then the server closes. A server that will not answer (an old
 *   version, a hook it does not serve) replies `{"v":1,"unavailable":"<why>"}`.
 * - The client runs the hook itself when there is no socket, the connection is refused, the answer
 *   is malformed or `unavailable`, or none arrives within the timeout.
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

/** Where the hook server of the project at `root` listens. */
export function hookSocketPath(root: string): string {
  const id = createHash('sha256').update(resolve(root)).digest('hex').slice(0, 16)
  return process.platform === 'win32' ? `\\\\.\\pipe\\foundry-hooks-${id}` : join(tmpdir(), `foundry-hooks-${id}.sock`)
}

/** Ask the project's hook server to run `hook`; `undefined` when no server answers (run it yourself). */
export function askServer(root: string, hook: HookName, stdin: string, timeoutMs = ANSWER_TIMEOUT_MS): Promise<HookAnswer | undefined> {
  return new Promise((settle) => {
    let received = ''
    const socket = connect(hookSocketPath(root))
    const done = (answer: HookAnswer | undefined) => {
      clearTimeout(timer)
      socket.destroy()
      settle(answer)
    }
    const timer = setTimeout(() => done(undefined), timeoutMs)
    socket.setEncoding('utf8')
    socket.on('connect', () => socket.end(`${JSON.stringify({ v: PROTOCOL_VERSION, hook, stdin } satisfies HookRequest)}\n`))
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
    if (value.v !== PROTOCOL_VERSION || typeof value.stdout !== 'string' || typeof value.stderr !== 'string' || typeof value.exitCode !== 'number') return undefined
    return { stdout: value.stdout, stderr: value.stderr, exitCode: value.exitCode }
  } catch {
    return undefined
  }
}
