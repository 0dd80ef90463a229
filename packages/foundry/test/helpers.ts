import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { validator } from '@foundry/kernel'
import { KERNEL_TOOLS } from '@foundry/kernel/tools'

/** The built bin: tests run what users run. Build first (`pnpm --filter @foundry/cli build`). */
export const BIN = fileURLToPath(new URL('../dist/bin/foundry.cjs', import.meta.url))

const made: string[] = []

/** A fresh folder that is not a project. Removed by `cleanup()`. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'foundry-mcp-test-'))
  made.push(dir)
  return dir
}

/** A fresh project folder (`.foundry/`, as `foundry init` leaves it); `config` becomes .foundry/config.json. Removed by `cleanup()`. */
export function tempProject(config?: object): string {
  const root = tempDir()
  mkdirSync(join(root, '.foundry'), { recursive: true })
  if (config) writeFileSync(join(root, '.foundry', 'config.json'), JSON.stringify(config))
  return root
}

export function cleanup(): void {
  for (const root of made.splice(0)) rmSync(root, { recursive: true, force: true })
}

export interface Connection {
  client: Client
  /** Everything the server wrote to stderr so far. */
  stderr(): string
  close(): Promise<void>
}

/** `foundry mcp --root <root>` spawned and connected with the SDK client over stdio; `env` adds to the SDK's default environment. */
export function connect(root: string, extraArgs: string[] = [], env?: Record<string, string>): Promise<Connection> {
  return connectWith(['--root', root, ...extraArgs], { ...(env && { env }) })
}

/** `foundry mcp <args>` started in `cwd` (as a client starts it from .mcp.json), connected with the SDK client. */
export async function connectWith(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Connection> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    stderr: 'pipe',
    ...(options.cwd && { cwd: options.cwd }),
    ...(options.env && { env: options.env }),
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const client = new Client({ name: 'foundry-mcp-test', version: '1.0.0' })
  await client.connect(transport)
  return { client, stderr: () => stderr, close: () => client.close() }
}

/**
 * Call a tool; its text, structured content and error flag. `tools/list` publishes no output
 * schema, so the SDK client checks no `structuredContent`: this does, against the tool row's `output`.
 */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  const output = KERNEL_TOOLS.find((row) => row.name === name)?.output
  if (output && result.structuredContent !== undefined)
    validator(output).parse(result.structuredContent, `${name} structuredContent`)
  const first = result.content[0]
  return {
    text: first?.type === 'text' ? first.text : '',
    structured: result.structuredContent as Record<string, any> | undefined,
    isError: result.isError === true,
  }
}

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Run the `foundry` bin to completion in `cwd`. */
export function cli(
  args: string[],
  options: { cwd?: string; input?: string; env?: Record<string, string> } = {},
): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? tempDir(), // a folder of its own: nothing another process leaves in the shared one is found
    input: options.input ?? '',
    encoding: 'utf8',
    env: { ...process.env, ...options.env },
    // spawnSync kills a child past 1 MiB of output by default: `list --json` of a few thousand facts is more.
    maxBuffer: 256 * 1024 * 1024,
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/**
 * Pipe raw JSON-RPC into `foundry mcp` the way `printf '…' | foundry mcp` does: every message, then
 * stdin closed at once. Returns every stdout line (each a message), stderr and the exit code.
 */
export async function pipeSession(root: string, messages: object[]) {
  const child = spawn(process.execPath, [BIN, 'mcp', '--root', root], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  child.stdin.end(messages.map((m) => `${JSON.stringify(m)}\n`).join(''))
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  const lines = stdout.split('\n').filter(Boolean)
  return { lines, messages: lines.map((l) => JSON.parse(l) as Record<string, any>), stderr, exitCode }
}

export const initialize = (id: number, protocolVersion = '2025-06-18') => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
})

/** A decision as the seed's example shows it. */
export const flyway = {
  title: 'Persistence layer uses Flyway, not Liquibase',
  body: 'Chosen for the plain-SQL migration format the team already reads.\nWhy: the team reviews SQL, not XML.\nHow to apply: add migrations as V<n>__<name>.sql files.',
  type: 'decision',
  confidence: 'high',
  source: 'adr-0007',
}

/** A finding that satisfies finding.v1. */
export const finding = {
  title: 'Orders endpoint lacks access control',
  severity: 'high',
  summary: 'Six findings, two high. Access control on /api/orders is the blocking one.',
  failureScenario: "A signed-in customer requests /api/orders/42 and reads another customer's order.",
}

/** The text of a resource (every foundry resource is one markdown text). */
export async function readText(client: Client, uri: string): Promise<string> {
  const { contents } = await client.readResource({ uri })
  const first = contents[0]
  return first && 'text' in first ? first.text : ''
}
