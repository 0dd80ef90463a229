import { createToolServer } from '@foundry/server'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import pkg from '../../package.json' with { type: 'json' }
import type { MarblesHost } from './host.js'
import { TOOLS } from './tools.js'

export const INSTRUCTIONS =
  'Marbles runs this workspace’s workflows and agents. Dispatch returns a runId at once; read it with get_run (or `marbles watch <runId>`), cancel it with cancel_run. list_config names what can run.'

/** The `marbles mcp` server on any transport: the five tools (initialize, ping, tools/list, tools/call). */
export function createMarblesServer(host: MarblesHost, log?: (line: string) => void): Server {
  return createToolServer({ info: { name: 'marbles', title: 'Marbles', version: pkg.version }, instructions: INSTRUCTIONS, tools: TOOLS, context: () => host, ...(log && { log }) })
}
