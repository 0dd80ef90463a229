import type { Kernel } from '@foundry/kernel'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import { CAPABILITIES, INSTRUCTIONS, SERVER_INFO } from './handshake.js'
import { BusyError, createLimiter } from './limit.js'
import { retrying } from './retrying.js'

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
   * The bound on work in flight (limit.ts): tool calls and resource reads running at once (default
   * 8) and waiting (default 256). Past it a tool call is an error result "<tool> refused: the server
   * is busy …" and a resource read JSON-RPC error -32000, both before any work.
   */
  limits?: { running?: number; waiting?: number }
}

/**
 * The foundry MCP server on any transport: the tools of `TOOLS`, the resources, the instructions. It
 * implements initialize, ping, tools/list, tools/call, resources/list and resources/read; the SDK
 * negotiates the protocol version (2025-11-25 and 2025-06-18 among them).
 */
export function createServer(options: ServerOptions): Server {
  const log = options.log ?? ((line: string) => void process.stderr.write(`foundry: ${line}\n`))
  const source = options.kernel
  const kernel = typeof source === 'function' ? retrying(source) : async () => source
  // The tool table and the resources pull in the kernel (TypeBox, MiniSearch): load them on first
  // use, so a client's `initialize` is answered before they are parsed.
  const dispatch = retrying(() => import('./dispatch.js'))
  const resources = retrying(() => import('./resources.js'))

  const server = new Server(SERVER_INFO, { capabilities: CAPABILITIES, instructions: INSTRUCTIONS, jsonSchemaValidator: NO_ELICITATION })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await dispatch()).listTools() }))
  const limiter = createLimiter(options.limits?.running, options.limits?.waiting)
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    try {
      return await limiter.run(async () => (await dispatch()).callTool(kernel, params.name, params.arguments, log))
    } catch (error) {
      if (!(error instanceof BusyError)) throw error
      return { content: [{ type: 'text', text: `${params.name} refused: ${error.message}` }], isError: true }
    }
  })
  server.setRequestHandler(ListResourcesRequestSchema, async () => limited(async () => ({ resources: await (await resources()).listResources(await kernel()) })))
  server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) =>
    limited(async () => {
      const found = await (await resources()).readResource(await kernel(), params.uri)
      if (!found) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown resource: ${params.uri.slice(0, 1000)}`)
      return found
    }),
  )
  async function limited<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await limiter.run(fn)
    } catch (error) {
      if (error instanceof BusyError) throw new ProtocolError(-32000, `Busy: ${error.message}`)
      throw error
    }
  }
  // Open the project while the client sends its first requests, not during the first tool call.
  server.oninitialized = () => void kernel().catch((error: unknown) => log(`cannot open the project: ${(error as Error).message}`))
  return server
}

/**
 * The SDK's server checks JSON Schema only on elicitation responses, and this server never elicits:
 * a validator nobody asks spares building Ajv on every start (~10 ms of `foundry mcp` start-up).
 */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => {
    throw new Error('The foundry server sends no elicitation requests, so it validates no JSON Schema')
  },
}

/** A JSON-RPC error whose message reaches the client as written (the SDK's McpError prefixes it). */
class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}
