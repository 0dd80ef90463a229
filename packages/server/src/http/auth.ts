import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Role } from '@foundry/kernel/tools'
import type { Principal } from './tokens.js'

/** What a principal holds: its roles, and read with write or run. */
export function grants(principal: Principal): Set<Role> {
  const held = new Set<Role>(principal.roles)
  if (held.has('write') || held.has('run')) held.add('read')
  return held
}

/** True when the principal may call the tool: `roles` (from `checkTools`) names its role and the principal holds it. A tool without one is never callable. */
export function mayCall(principal: Principal, tool: string, roles: ReadonlyMap<string, Role>): boolean {
  const needs = roles.get(tool)
  return needs !== undefined && grants(principal).has(needs)
}

/** One finished tool call, for the event that names its caller. */
export interface ToolCallRecord {
  tool: string
  /** The token's name (never its secret). */
  token: string
  ms: number
  status: 'ok' | 'error' | 'refused'
}

/**
 * Put a session's transport behind its principal, after `server.connect(transport)`:
 * - a `tools/call` of a tool the token may not call is answered with an error result naming the role
 *   it needs, and never reaches the server;
 * - a `tools/list` answer keeps only the tools the token may call;
 * - each tool call, answered or refused, is passed to `onCall` (the event naming the token);
 * - `inFlight` counts requests read and not yet answered (graceful shutdown waits for them).
 */
export function guardTransport(
  transport: Transport,
  principal: Principal,
  hooks: {
    roles: ReadonlyMap<string, Role>
    onCall?: (call: ToolCallRecord) => void
    inFlight: { count: number; changed: () => void }
  },
): void {
  const inner = transport.onmessage
  const send = transport.send.bind(transport)
  const lists = new Set<string>()
  const calls = new Map<string, { tool: string; start: number }>()
  const held = grants(principal)
  transport.onmessage = (message, extra) => {
    if ('method' in message && 'id' in message && message.id !== undefined) {
      const key = JSON.stringify(message.id)
      if (message.method === 'tools/call') {
        const tool = String((message.params as { name?: unknown } | undefined)?.name ?? '')
        const needs = hooks.roles.get(tool)
        // A name with no row is left to the server, which answers "Unknown tool" (its table is the one `roles` came from).
        if (needs !== undefined && !held.has(needs)) {
          hooks.onCall?.({ tool, token: principal.name, ms: 0, status: 'refused' })
          const text = `${tool} refused: the token ${principal.name} has role ${principal.roles.join('+')}; ${tool} needs ${needs} (foundry token create --role ${needs})`
          void send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }], isError: true } })
          return
        }
        calls.set(key, { tool, start: performance.now() })
      } else if (message.method === 'tools/list') lists.add(key)
      hooks.inFlight.count++
    }
    inner?.(message, extra)
  }
  transport.send = async (message: JSONRPCMessage, options) => {
    if (!('method' in message) && 'id' in message && message.id !== undefined) {
      const key = JSON.stringify(message.id)
      if (lists.delete(key) && 'result' in message) {
        const result = message.result as { tools?: Tool[] }
        if (Array.isArray(result.tools))
          message = {
            ...message,
            result: { ...result, tools: result.tools.filter((t) => mayCall(principal, t.name, hooks.roles)) },
          }
      }
      const call = calls.get(key)
      if (call) {
        calls.delete(key)
        const failed = 'error' in message || (message as { result?: { isError?: boolean } }).result?.isError === true
        hooks.onCall?.({
          tool: call.tool,
          token: principal.name,
          ms: Math.round((performance.now() - call.start) * 100) / 100,
          status: failed ? 'error' : 'ok',
        })
      }
      try {
        return await send(message, options)
      } finally {
        hooks.inFlight.count--
        hooks.inFlight.changed()
      }
    }
    return send(message, options)
  }
}
