import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { INITIALIZE as RAW_INITIALIZE, rawPost } from '@foundry/server/testing'

/** A server started with `--http` on a free loopback port: its URL, its stderr so far, and how it exited. */
export interface HttpProcess {
  url: string
  child: ChildProcess
  stderr(): string
  exited: Promise<number | null>
  /** SIGTERM, then wait for the exit code (SIGKILL after 20 s). */
  stop(): Promise<number | null>
  /** The server's per-user runtime folder (XDG_RUNTIME_DIR): a private one of the test's unless `env` names one. */
  runtimeDir: string
  /** The local token the server wrote there (a server without team tokens requires it), or undefined. */
  localToken(): string | undefined
}

/**
 * Spawn `node <bin> <args>` and wait (at most 20 s) for its "serving MCP over HTTP at <url>" line. The
 * server's XDG_RUNTIME_DIR is a fresh private folder (removed when it stops) unless `env` sets one.
 */
export async function startHttp(
  bin: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<HttpProcess> {
  const own = env.XDG_RUNTIME_DIR === undefined ? mkdtempSync(join(tmpdir(), 'foundry-runtime-')) : undefined
  const runtimeDir = env.XDG_RUNTIME_DIR ?? own!
  const child = spawn(process.execPath, [bin, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, XDG_RUNTIME_DIR: runtimeDir, ...env },
  })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  child.stdout!.on('data', () => {})
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL after 20 s; stderr: ${stderr}`)), 20_000)
    const look = () => {
      const match = /serving MCP over HTTP at (\S+)/.exec(stderr)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stderr!.on('data', look)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`exited ${code} before listening; stderr: ${stderr}`))
    })
  })
  const tokenFile = join(runtimeDir, 'foundry', 'http.token')
  return {
    url,
    child,
    stderr: () => stderr,
    exited,
    runtimeDir,
    localToken: () => (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : undefined),
    async stop() {
      child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000)
      const code = await exited
      clearTimeout(killer)
      if (own) rmSync(own, { recursive: true, force: true })
      return code
    },
  }
}

/** The SDK's own client over Streamable HTTP, with a bearer token when given. */
export async function httpClient(url: string, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {},
  )
  const client = new Client({ name: 'foundry-http-test', version: '1.0.0' })
  await client.connect(transport)
  return client
}

/** `initialize` with id 1. */
export const INITIALIZE = { ...RAW_INITIALIZE, id: 1 }
export { rawPost }
