import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js'
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js'
import { BusyError } from './limit.js'
import { publishTools } from './publish-tools.js'
import { toolCalls } from './tool-calls.js'
import { callAsTask, TASKS_CAPABILITY, type ToolTasks } from './tool-tasks.js'
import { checkTools, type ToolRow } from '@foundry/kernel/tools'

/** What a server answers to `initialize` about itself. */
export interface ServerInfo {
  name: string
  title?: string
  version: string
}

/** Resources beside the tools (`foundry mcp`'s memory index, contracts and runbooks). */
export interface ResourceTable<C> {
  /** `resources/list`. */
  list(ctx: C): Promise<Resource[]>
  /** `resources/read`: the contents, or `undefined` when the URI names none (answered -32602). */
  read(ctx: C, uri: string): Promise<ReadResourceResult | undefined>
}

export interface ToolServerOptions<C> {
  info: ServerInfo
  /** Returned on `initialize`: what shapes the model's default behaviour. */
  instructions?: string
  /** The tool rows; checked at once (`checkTools`): a row without a valid role throws here. */
  tools: readonly ToolRow<C>[]
  /**
   * What each call gets (a kernel, a host). Called when the client has initialized and on first use,
   * shared, and called again after a failure, so a fixed config.json is picked up without a restart.
   */
  context: () => C | Promise<C>
  resources?: ResourceTable<C>
  /** MCP Tasks for the tools that start long work (`ToolTasks`); absent: no tasks capability. */
  tasks?: ToolTasks<C>
  /**
   * The bound on work in flight: tool calls and resource reads running at once (default 8) and
   * waiting (default 256). Past it a tool call is an error result "<tool> refused: the server is
   * busy …" and a resource read JSON-RPC error -32000, both before any work.
   */
  limits?: { running?: number; waiting?: number }
  /** Diagnostics, one line each. Default: stderr, prefixed with the server's name (stdout carries protocol messages only). */
  log?: (line: string) => void
  /**
   * The calls, made by `toolCalls` from these rows and context, when something else answers calls
   * too (a stdio transport, before this server has loaded): one bound and one context for both.
   * Default: made here.
   */
  calls?: ReturnType<typeof toolCalls<C>>
}

/**
 * An MCP server on any transport for one tool table: initialize, ping, tools/list, tools/call, and
 * resources/list and resources/read when given resources. The SDK negotiates the protocol version.
 */
export function createToolServer<C>(options: ToolServerOptions<C>): Server {
  checkTools(options.tools)
  const { info, tools, resources } = options
  const log = options.log ?? ((line: string) => void process.stderr.write(`${info.name}: ${line}\n`))
  const { context, limiter, run, call } = options.calls ?? toolCalls({ ...options, log })
  const { tasks } = options
  const capabilities = { tools: {}, ...(resources && { resources: {} }), ...(tasks && { tasks: TASKS_CAPABILITY }) }
  const noElicitation = noElicitationFor(info.name)
  const server = new Server(info, {
    capabilities,
    ...(options.instructions && { instructions: options.instructions }),
    jsonSchemaValidator: noElicitation,
    ...(tasks && { taskStore: tasks.store }),
  })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: publishTools(tools, tasks?.tools) }))
  server.setRequestHandler(CallToolRequestSchema, async ({ params }, extra) => {
    // A plain call past the bound is refused as a tool error result (`call`); a task, as a JSON-RPC error.
    if (!params.task) return call(params.name, params.arguments)
    try {
      return await callAsTask(tasks, params.name, () => run(params.name, params.arguments), context, extra.sessionId)
    } catch (error) {
      if (!(error instanceof BusyError)) throw error
      throw new ProtocolError(-32000, `${params.name} refused: ${error.message}`)
    }
  })
  if (resources) {
    server.setRequestHandler(ListResourcesRequestSchema, async () =>
      limited(async () => ({ resources: await resources.list(await context()) })),
    )
    server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) =>
      limited(async () => {
        const found = await resources.read(await context(), params.uri)
        if (!found) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown resource: ${params.uri.slice(0, 1000)}`)
        return found
      }),
    )
  }
  async function limited<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await limiter.run(fn)
    } catch (error) {
      if (error instanceof BusyError) throw new ProtocolError(-32000, `Busy: ${error.message}`)
      throw error
    }
  }
  // Open the context while the client sends its first requests, not during the first tool call.
  server.oninitialized = () =>
    void context().catch((error: unknown) => log(`cannot open the project: ${(error as Error).message}`))
  return server
}

/**
 * The SDK's server checks JSON Schema only on elicitation responses, and these servers never elicit:
 * a validator nobody asks spares building Ajv on every start (~10 ms of start-up).
 */
function noElicitationFor(name: string): jsonSchemaValidator {
  return {
    getValidator: () => () => {
      throw new Error(`The ${name} server sends no elicitation requests, so it validates no JSON Schema`)
    },
  }
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
