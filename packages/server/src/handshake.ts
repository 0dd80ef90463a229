/*
 * What a server answers to `initialize`, kept apart from the SDK: a stdio server answers the handshake
 * before the SDK's Server and its zod schemas have loaded, and the Server, once loaded, is built from
 * the same values.
 */

/** The protocol versions the SDK's Server negotiates, newest first: its `SUPPORTED_PROTOCOL_VERSIONS` (test/handshake.test.ts holds them equal). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07']

export interface Handshake {
  /** `serverInfo`: the server's name, title and version. */
  info: { name: string; title?: string; version: string }
  /** `capabilities`, as the Server declares them (`{ tools: {} }`, and `resources: {}` when it has resources). */
  capabilities: object
  /** `instructions`: what shapes the model's default behaviour. */
  instructions?: string
}

/**
 * `FoundryStdioTransport`'s `initialize` option for one server: the result of an `initialize` request
 * as the SDK's Server gives it, or `undefined` when the request is not one it would accept as is (then
 * the Server answers it, when it has loaded).
 */
export function initializeAnswer(handshake: Handshake): (message: unknown) => object | undefined {
  return (message) => {
    if (!isRecord(message) || message.method !== 'initialize' || message.jsonrpc !== '2.0') return undefined
    if (Object.keys(message).some((key) => !['jsonrpc', 'id', 'method', 'params'].includes(key))) return undefined
    const { id, params } = message
    if (!(typeof id === 'string' || Number.isInteger(id)) || !isRecord(params)) return undefined
    const { protocolVersion, capabilities, clientInfo } = params
    if (typeof protocolVersion !== 'string' || !isRecord(capabilities) || !isRecord(clientInfo)) return undefined
    if (typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') return undefined
    return {
      protocolVersion: PROTOCOL_VERSIONS.includes(protocolVersion) ? protocolVersion : PROTOCOL_VERSIONS[0],
      capabilities: handshake.capabilities,
      serverInfo: handshake.info,
      ...(handshake.instructions !== undefined && { instructions: handshake.instructions }),
    }
  }
}

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
