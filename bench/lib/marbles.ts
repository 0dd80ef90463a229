// The built @foundry/marbles for the Marbles suites (bench builds every package first), imported by path so
// bench's manifest is unchanged, and `marbles mcp` spawned with the SDK's own client.
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

export const MARBLES_DIR = new URL('../../packages/marbles/', import.meta.url).pathname
export const MARBLES_LIB = pathToFileURL(join(MARBLES_DIR, 'dist', 'index.js')).href
export const MARBLES_ENGINE = pathToFileURL(join(MARBLES_DIR, 'dist', 'engine', 'index.js')).href
export const MARBLES_BIN = join(MARBLES_DIR, 'dist', 'bin', 'marbles.js')

/** The authoring API (`@foundry/marbles`) and the engine (`@foundry/marbles/engine`) together. */
export type Marbles = typeof import('../../packages/marbles/src/index.js') &
  typeof import('../../packages/marbles/src/engine/index.js')

/** What the suites use of the SDK's `Client`. */
export interface McpClient {
  callTool(params: {
    name: string
    arguments: Record<string, unknown>
  }): Promise<{ content: Array<{ text: string }>; structuredContent?: Record<string, any>; isError?: boolean }>
  close(): Promise<void>
}

// The SDK client is resolved from @foundry/marbles, whose dependency it is: the version `marbles mcp` is built with.
const fromMarbles = createRequire(join(MARBLES_DIR, 'package.json'))
const { Client } = fromMarbles('@modelcontextprotocol/sdk/client/index.js') as {
  Client: new (info: { name: string; version: string }) => McpClient & { connect(transport: unknown): Promise<void> }
}
const { StdioClientTransport, getDefaultEnvironment: sdkEnvironment } = fromMarbles(
  '@modelcontextprotocol/sdk/client/stdio.js',
) as {
  StdioClientTransport: new (options: {
    command: string
    args: string[]
    env: Record<string, string>
    stderr: 'inherit'
  }) => unknown
  getDefaultEnvironment(): Record<string, string>
}

/** The environment the SDK's stdio transport gives a child (what a bare `node` baseline gets too). */
export const getDefaultEnvironment = sdkEnvironment

/** A `marbles mcp` child (`node marbles.js …args`) with a connected client; `env` is added to the SDK's default one. */
export async function connectMarblesMcp(args: string[], env: Record<string, string> = {}): Promise<McpClient> {
  const client = new Client({ name: 'marbles-bench', version: '1.0.0' })
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [MARBLES_BIN, ...args],
      env: { ...sdkEnvironment(), ...env },
      stderr: 'inherit',
    }),
  )
  return client
}
