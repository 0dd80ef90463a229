import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { validator } from '@foundry/kernel'
import { initProject, openProject, type Project } from '@foundry/project'
import { TOOLS } from '../src/mcp/tools.js'
import { loadWorkspace } from '../src/workspace/load.js'
import type { Definitions } from '../src/define/registry.js'

export const HERE = new URL('.', import.meta.url).pathname
export const BIN = join(HERE, '..', 'dist', 'bin', 'marbles.js')
export const BASIC = join(HERE, 'fixtures', 'basic')
export const STORAGES = ['fs', 'sqlite'] as const

/** A new project in a temporary folder, on the given storage. */
export async function newProject(kind: 'fs' | 'sqlite' = 'fs'): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), `marbles-test-${kind}-`))
  await initProject({ root, storage: kind })
  return root
}

/** The workspace's package declaring the `foundry` bin, linked into the project's node_modules as `npm i -D` would install it. */
export function installFoundry(root: string): void {
  mkdirSync(join(root, 'node_modules', '@foundry'), { recursive: true })
  symlinkSync(join(HERE, '..', '..', 'foundry'), join(root, 'node_modules', '@foundry', 'cli'), 'dir')
}

export async function open(root: string): Promise<Project> {
  return openProject({ root })
}

let basic: Definitions | undefined
export async function basicDefinitions(): Promise<Definitions> {
  return (basic ??= (await loadWorkspace({ root: HERE, source: BASIC })).definitions)
}

/** The environment of a child: without FORCE_COLOR, whose clash with NO_COLOR (the test runner sets both) makes Node warn on stderr. */
function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { FORCE_COLOR: _, ...env } = { ...process.env, ...extra }
  return env
}

/** Run the built `marbles` bin to completion. */
export function marbles(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const run = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? HERE,
    env: childEnv(options.env),
    encoding: 'utf8',
    timeout: 60_000,
  })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}

/** Start the built `marbles` bin; `exited` resolves with its code and output. */
export function start(args: string[], options: { cwd?: string } = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? HERE,
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d) => (stdout += d))
  child.stderr!.on('data', (d) => (stderr += d))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  )
  return { child, exited, output: () => ({ stdout, stderr }) }
}

/** Wait until `check` holds (polling every 20 ms), or throw after `ms`. */
export async function until<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 15_000,
  what = 'condition',
): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

export function kill(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): void {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal)
}

export const FAKE_BIN = join(HERE, 'fixtures', 'bin')
export const AGENTS = join(HERE, 'fixtures', 'agents')

/** `marbles mcp` as an MCP client sees it: the SDK's own Client over stdio, the fake CLIs first on PATH. */
export async function connectMcp(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; flags?: string[] } = {},
) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...args, 'mcp', ...(options.flags ?? [])],
    cwd: options.cwd ?? HERE,
    env: childEnv({ PATH: `${FAKE_BIN}:${process.env.PATH}`, MARBLES_KILL_GRACE_MS: '400', ...options.env }) as Record<
      string,
      string
    >,
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (d) => (stderr += d))
  const client = new Client({ name: 'marbles-test', version: '0.0.0' })
  await client.connect(transport)
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as {
      isError?: boolean
      content: Array<{ text: string }>
      structuredContent?: Record<string, unknown>
    }
    // tools/list publishes no output schema, so the SDK client checks nothing: this checks structuredContent against the row.
    const output = TOOLS.find((row) => row.name === name)?.output
    if (output && result.structuredContent !== undefined)
      validator(output).parse(result.structuredContent, `${name} structuredContent`)
    return {
      error: result.isError ? result.content[0]!.text : undefined,
      data: (result.structuredContent ?? {}) as Record<string, any>,
      text: result.content[0]!.text,
    }
  }
  /** Poll get_run until the run is no longer queued/running. */
  const settle = async (runId: string, ms = 20_000) =>
    until(
      async () => {
        const r = await call('get_run', { runId })
        return ['completed', 'failed', 'cancelled', 'suspended', 'waiting'].includes(r.data.status) ? r : undefined
      },
      ms,
      `run ${runId} to settle`,
    )
  return { client, transport, call, settle, stderr: () => stderr, pid: () => transport.pid }
}

/** Whether a process is still running (signal 0 reaches it). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
