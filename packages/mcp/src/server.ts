import type { Kernel } from '@foundry/kernel'
import { createToolServer, publishTools } from '@foundry/server'
import type { toolCalls } from '@foundry/server/calls'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { INSTRUCTIONS, SERVER_INFO } from './handshake.js'
import { listResources, readResource } from './resources.js'
import { TOOLS } from './tools.js'

export { INSTRUCTIONS }

export interface ServerOptions {
  /**
   * The kernel the tools call, or a function that opens it. The function is called on first use
   * (and again after it fails, so a fixed config.json is picked up without a restart).
   */
  kernel: Kernel | (() => Promise<Kernel>)
  /** Diagnostics, one line each. Default: stderr (stdout carries protocol messages only). */
  log?: (line: string) => void
  /**
   * The bound on work in flight (`createToolServer`): tool calls and resource reads running at once
   * (default 8) and waiting (default 256). Past it a tool call is an error result "<tool> refused:
   * the server is busy …" and a resource read JSON-RPC error -32000, both before any work.
   */
  limits?: { running?: number; waiting?: number }
  /**
   * The calls (`toolCalls` of `@foundry/server/calls`, on `TOOLS` and this kernel) when a transport
   * answers calls too, before this server has loaded: one bound and one kernel for both. Default:
   * made here.
   */
  calls?: ReturnType<typeof toolCalls<Kernel>>
}

/**
 * The foundry MCP server on any transport: the tools of `TOOLS`, the resources, the instructions. It
 * implements initialize, ping, tools/list, tools/call, resources/list and resources/read; the SDK
 * negotiates the protocol version (2025-11-25 and 2025-06-18 among them).
 */
export function createServer(options: ServerOptions): Server {
  const source = options.kernel
  return createToolServer<Kernel>({
    info: SERVER_INFO,
    instructions: INSTRUCTIONS,
    tools: TOOLS,
    context: typeof source === 'function' ? source : () => source,
    resources: { list: listResources, read: readResource },
    log: options.log ?? ((line: string) => void process.stderr.write(`foundry: ${line}\n`)),
    ...(options.limits && { limits: options.limits }),
    ...(options.calls && { calls: options.calls }),
  })
}

/** `tools/list`: the table as the protocol publishes it. */
export function listTools(): Tool[] {
  return publishTools(TOOLS)
}
