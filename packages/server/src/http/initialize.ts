/** The longest client name or version a session keeps. */
export const CLIENT_INFO_CHARS = 128
/** The largest client capabilities object a session keeps (as JSON); a larger one is cut to its known flags. */
export const CAPABILITIES_BYTES = 8 * 1024

/**
 * An `initialize` request reduced to what a session needs to keep for its whole life: the client's
 * name and version cut to `CLIENT_INFO_CHARS` (other clientInfo fields dropped), the protocol version
 * to 64 characters, other params dropped, and capabilities over `CAPABILITIES_BYTES` to the spec's known ones without their
 * payloads. The strings are copied, not sliced, so nothing of the request body stays referenced.
 */
export function boundInitialize<T extends { params?: unknown }>(message: T): T {
  const params = (message.params ?? {}) as {
    protocolVersion?: unknown
    capabilities?: unknown
    clientInfo?: { name?: unknown; version?: unknown }
  }
  const info = params.clientInfo ?? {}
  return {
    ...message,
    params: {
      protocolVersion: copy(params.protocolVersion, 64),
      capabilities: boundCapabilities(params.capabilities),
      clientInfo: { name: copy(info.name, CLIENT_INFO_CHARS), version: copy(info.version, CLIENT_INFO_CHARS) },
    },
  }
}

/** A fresh string of at most `max` characters (a slice of a long string would keep the whole of it alive in V8). */
function copy(value: unknown, max: number): string {
  return typeof value === 'string' ? Buffer.from(value.slice(0, max), 'utf8').toString('utf8') : ''
}

function boundCapabilities(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {}
  if (JSON.stringify(value).length <= CAPABILITIES_BYTES) return value as Record<string, unknown>
  const given = value as Record<string, unknown>
  const kept: Record<string, unknown> = {}
  for (const key of ['roots', 'sampling', 'elicitation'])
    if (given[key] !== undefined)
      kept[key] =
        key === 'roots' ? { listChanged: (given.roots as { listChanged?: unknown })?.listChanged === true } : {}
  return kept
}
