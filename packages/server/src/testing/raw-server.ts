import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { readFileSync } from 'node:fs'

/**
 * An MCP server over raw stdio (`node <bin> …args`): write any bytes, wait for answers by id, watch
 * its peak resident memory (Linux `VmHWM`) and how it exits. For attacks the SDK client cannot send.
 */
export interface RawServer {
  child: ChildProcessWithoutNullStreams
  /** Write bytes as they are (no newline added). */
  write(bytes: string | Buffer): Promise<void>
  /** Write each message as one JSON line. */
  send(...messages: object[]): Promise<void>
  /** The answer with this id, once it arrives; rejects after `timeoutMs`. */
  answer(id: number | string, timeoutMs?: number): Promise<Record<string, any>>
  /** Every message received so far. */
  received(): Record<string, any>[]
  stderr(): string
  /** Peak resident set of the child so far, in MiB (from /proc; 0 where there is none). */
  peakRssMiB(): number
  /** Exit code and signal, once it exits. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  alive(): boolean
  /** End stdin and wait for the exit (SIGKILL after `timeoutMs`). */
  close(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

export interface RawServerOptions {
  /** Added to this process's environment. */
  env?: Record<string, string>
  cwd?: string
}

/** Start `node <bin> …args` with its stdin, stdout and stderr piped to the returned `RawServer`. */
export function startRawServer(bin: string, args: readonly string[], options: RawServerOptions = {}): RawServer {
  const child = spawn(process.execPath, [bin, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
    ...(options.cwd && { cwd: options.cwd }),
  })
  let buffer = ''
  let stderr = ''
  let peak = 0
  const messages: Record<string, any>[] = []
  const waiting = new Map<string, (m: Record<string, any> | Error) => void>()
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk
    let end: number
    while ((end = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, end)
      buffer = buffer.slice(end + 1)
      if (!line.trim()) continue
      const message = JSON.parse(line) as Record<string, any>
      messages.push(message)
      const key = JSON.stringify(message.id)
      waiting.get(key)?.(message)
      waiting.delete(key)
    }
  })
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  child.stdin.on('error', () => {}) // EPIPE once it exits: the exit is what the test reads
  let done = false
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      done = true
      resolve({ code, signal })
      // Nothing more will be answered: every wait ends now.
      for (const settle of waiting.values())
        settle(new Error(`the server exited (${signal ?? code}) before answering; stderr: ${stderr.slice(-500)}`))
      waiting.clear()
    }),
  )
  const sample = () => {
    try {
      const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0)
      peak = Math.max(peak, kb / 1024)
    } catch {
      // exited, or no /proc
    }
  }
  const sampler = setInterval(sample, 50)
  void exited.then(() => clearInterval(sampler))
  const write = (bytes: string | Buffer) =>
    new Promise<void>((resolve) => {
      if (done || child.stdin.destroyed) return resolve()
      child.stdin.write(bytes, () => resolve())
    })
  return {
    child,
    write,
    send: (...ms) => write(ms.map((m) => `${JSON.stringify(m)}\n`).join('')),
    answer(id, timeoutMs = 20_000) {
      const key = JSON.stringify(id)
      const found = messages.find((m) => JSON.stringify(m.id) === key && !('method' in m))
      if (found) return Promise.resolve(found)
      if (done) return Promise.reject(new Error(`the server exited before answering id ${key}`))
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no answer to id ${key} within ${timeoutMs} ms; stderr: ${stderr.slice(-500)}`)),
          timeoutMs,
        )
        waiting.set(key, (m) => {
          clearTimeout(timer)
          if (m instanceof Error) reject(m)
          else resolve(m)
        })
      })
    },
    received: () => messages,
    stderr: () => stderr,
    peakRssMiB: () => (sample(), peak),
    exited,
    alive: () => !done,
    async close(timeoutMs = 10_000) {
      sample()
      child.stdin.end()
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
      const result = await exited
      clearTimeout(timer)
      return result
    },
  }
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
}
export const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' }

/** Finish the handshake of a server just started. */
export async function initialized(server: RawServer): Promise<RawServer> {
  await server.send(INITIALIZE)
  await server.answer(0)
  await server.send(INITIALIZED)
  return server
}

export const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
})

/** The text of a tools/call answer. */
export const textOf = (message: Record<string, any>): string =>
  message.result?.content?.[0]?.text ?? message.error?.message ?? ''
