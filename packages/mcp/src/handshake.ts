import pkg from '../package.json' with { type: 'json' }

/*
 * What `foundry mcp` answers to `initialize`, kept apart from the SDK: the stdio server answers the
 * handshake before the SDK's Server and its zod schemas have loaded (~40 ms of start-up), and the
 * Server, once loaded, is built from the same values (server.ts).
 */

/** Returned on `initialize`, verbatim from seed 000: what shapes the model's default behaviour. */
export const INSTRUCTIONS =
  'Foundry memory and contracts. Prefer memory_search over reading .foundry files. Consult runbook_list before recurring tasks. ' +
  'Hand work between agents with blackboard_write, returning only the artifact path and a short summary.'

export const SERVER_INFO = { name: 'foundry', title: 'Foundry', version: pkg.version }
export const CAPABILITIES = { tools: {}, resources: {} }

/** The protocol versions the SDK's Server negotiates, newest first: its `SUPPORTED_PROTOCOL_VERSIONS` (a test holds them equal). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']

/**
 * The result of an `initialize` request as the SDK's Server gives it, or `undefined` when the request
 * is not one it would accept as is (then the Server answers it, when it has loaded).
 */
export function initializeResult(message: unknown): object | undefined {
  if (!isRecord(message) || message.method !== 'initialize' || message.jsonrpc !== '2.0') return undefined
  if (Object.keys(message).some((key) => !['jsonrpc', 'id', 'method', 'params'].includes(key))) return undefined
  const { id, params } = message
  if (!(typeof id === 'string' || Number.isInteger(id)) || !isRecord(params)) return undefined
  const { protocolVersion, capabilities, clientInfo } = params
  if (typeof protocolVersion !== 'string' || !isRecord(capabilities) || !isRecord(clientInfo)) return undefined
  if (typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') return undefined
  return {
    protocolVersion: PROTOCOL_VERSIONS.includes(protocolVersion) ? protocolVersion : PROTOCOL_VERSIONS[0],
    capabilities: CAPABILITIES,
    serverInfo: SERVER_INFO,
    instructions: INSTRUCTIONS,
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
