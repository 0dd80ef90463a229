import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { publishTools } from '@foundry/mcp'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import pkg from '../../package.json' with { type: 'json' }
import type { MarblesHost } from './host.js'
import { callTool, TOOLS } from './tools.js'

export const INSTRUCTIONS =
  'Marbles runs this workspace’s workflows and agents. Dispatch returns a runId at once; read it with get_run (or `marbles watch <runId>`), cancel it with cancel_run. list_config names what can run.'

/** The `marbles mcp` server on any transport: the five tools (initialize, ping, tools/list, tools/call). */
export function createMarblesServer(host: MarblesHost): Server {
  const server = new Server({ name: 'marbles', title: 'Marbles', version: pkg.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: NO_ELICITATION })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: publishTools(TOOLS) }))
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => callTool(host, params.name, params.arguments))
  return server
}

/** The server never elicits, so it validates no JSON Schema: no Ajv is built at start-up (as `foundry mcp`). */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => {
    throw new Error('The marbles server sends no elicitation requests')
  },
}
