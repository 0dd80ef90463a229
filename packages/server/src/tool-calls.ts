import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { ToolRow } from '@foundry/kernel/tools'
import { createToolCaller, failure } from './call-tool.js'
import { isRecord } from './handshake.js'
import { BusyError, createLimiter } from './limit.js'
import { retrying } from './retrying.js'

export interface ToolCallsOptions<C> {
  /** The tool rows. */
  tools: readonly ToolRow<C>[]
  /** What each call gets: opened on first use, shared, and opened again after a failure. */
  context: () => C | Promise<C>
  /** Calls running at once (default 8) and waiting (default 256); past them a call is refused as busy. */
  limits?: { running?: number; waiting?: number }
  /** Diagnostics, one line each: the stack of a tool that throws what is no FoundryError. */
  log: (line: string) => void
}

/**
 * A tool table's `tools/call` without the SDK: the context, the bound on work in flight, and the
 * call. `createToolServer` answers through them; so does a stdio server's transport for a call read
 * before the SDK's Server has loaded (`early`), so both share one bound and one context.
 */
export function toolCalls<C>(options: ToolCallsOptions<C>) {
  const context = retrying(async () => options.context())
  const callTool = createToolCaller(options.tools, options.log)
  const limiter = createLimiter(options.limits?.running, options.limits?.waiting)
  /** The call within the bound; `BusyError` past it, before any work. */
  const run = (name: string, args: Record<string, unknown> | undefined) =>
    limiter.run(() => callTool(context, name, args))
  /** The call within the bound; past it, the refusal as a tool error result. */
  const call = async (name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> => {
    try {
      return await run(name, args)
    } catch (error) {
      if (!(error instanceof BusyError)) throw error
      return failure(`${name} refused: ${error.message}`)
    }
  }
  return {
    context,
    limiter,
    run,
    call,
    /**
     * `FoundryStdioTransport`'s `early` option: a plain `tools/call` (a tool's name and its arguments)
     * answered here, as the Server answers it; anything more (a task, `_meta`, a field the protocol has
     * not got) is left to the Server.
     */
    early(request: { method: string; params?: unknown }): Promise<CallToolResult> | undefined {
      const { method, params } = request
      if (method !== 'tools/call' || !isRecord(params) || typeof params.name !== 'string') return undefined
      if (Object.keys(params).some((key) => key !== 'name' && key !== 'arguments')) return undefined
      if (params.arguments !== undefined && !isRecord(params.arguments)) return undefined
      return call(params.name, params.arguments)
    },
  }
}
