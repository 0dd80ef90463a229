import { createToolServer } from '@foundry/server'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { INSTRUCTIONS, SERVER_INFO } from './handshake.js'
import type { MarblesHost } from './host.js'
import { runTasks } from './tasks.js'
import { TOOLS } from './tools.js'

/**
 * The `marbles mcp` server on any transport: the five tools (initialize, ping, tools/list, tools/call),
 * and MCP Tasks for the two dispatches (tasks.ts).
 * `host` is the host, or what opens it: called when the client has initialized and by the first call,
 * again after a failure, whose message is that call's error.
 */
export function createMarblesServer(
  host: MarblesHost | (() => Promise<MarblesHost>),
  log?: (line: string) => void,
): Server {
  const context = typeof host === 'function' ? host : async () => host
  return createToolServer({
    info: SERVER_INFO,
    instructions: INSTRUCTIONS,
    tools: TOOLS,
    context,
    tasks: runTasks(context),
    ...(log && { log }),
  })
}
