import { FoundryError } from './errors.js'
import { utf8Bytes } from './tokens.js'

/** The most bytes one artifact may take as stored (pretty JSON, `serializeArtifact`): 1 MiB. */
export const ARTIFACT_MAX_BYTES = 1024 * 1024
/** The deepest nesting of objects and arrays accepted in an artifact or any tool's arguments. */
export const JSON_MAX_DEPTH = 32
/** The most bytes one `blackboard_read` with `full` returns: 4 MiB; past it, artifacts are named for reading one at a time. */
export const READ_FULL_MAX_BYTES = 4 * 1024 * 1024

/**
 * The exact UTF-8 size of `JSON.stringify(value, null, 2)`, measured without building it, and the
 * nesting depth. Stops early, returning `Infinity` for the size, once past `maxBytes` or `maxDepth`
 * (so a 24 KB request nested 10 000 deep costs a walk of 24 KB, never the 32 MB its pretty form is).
 */
export function measureJson(
  value: unknown,
  maxBytes = Number.POSITIVE_INFINITY,
  maxDepth = JSON_MAX_DEPTH,
): { bytes: number; depth: number } {
  let depth = 0
  let bytes = 0
  const walk = (v: unknown, level: number): boolean => {
    if (bytes > maxBytes) return false
    if (v === null || typeof v !== 'object') {
      bytes += typeof v === 'string' ? utf8Bytes(JSON.stringify(v)) : String(JSON.stringify(v) ?? 'null').length
      return bytes <= maxBytes
    }
    if (level + 1 > maxDepth) {
      depth = level + 1
      return false
    }
    depth = Math.max(depth, level + 1)
    const inner = 2 * (level + 1)
    if (Array.isArray(v)) {
      if (!v.length) return (bytes += 2) <= maxBytes
      bytes += 2 + 1 + 2 * level // "[" "\n" … "\n" + indent "]"
      for (let i = 0; i < v.length; i++) {
        bytes += inner + (i ? 2 : 1) // indent, and ",\n" (or "\n" after "[")
        if (!walk(v[i] === undefined || typeof v[i] === 'function' ? null : v[i], level + 1)) return false
      }
      return bytes <= maxBytes
    }
    const entries = Object.entries(v as Record<string, unknown>).filter(
      ([, x]) => x !== undefined && typeof x !== 'function',
    )
    if (!entries.length) return (bytes += 2) <= maxBytes
    bytes += 2 + 1 + 2 * level
    for (const [i, [key, x]] of entries.entries()) {
      bytes += inner + (i ? 2 : 1) + utf8Bytes(JSON.stringify(key)) + 2 // indent, separator, "key":
      if (!walk(x, level + 1)) return false
    }
    return bytes <= maxBytes
  }
  const within = walk(value, 0)
  return { bytes: within ? bytes : Number.POSITIVE_INFINITY, depth }
}

/**
 * Throws INVALID_INPUT, naming `field`, when `value` nests deeper than `JSON_MAX_DEPTH` or its pretty
 * JSON is over `maxBytes`: called before anything is written.
 */
export function assertJsonWithin(value: unknown, field: string, maxBytes: number): void {
  const { bytes, depth } = measureJson(value, maxBytes)
  if (depth > JSON_MAX_DEPTH)
    throw new FoundryError(
      'INVALID_INPUT',
      `${field} is nested more than ${JSON_MAX_DEPTH} levels deep: flatten it (nothing was written)`,
    )
  if (bytes > maxBytes)
    throw new FoundryError(
      'INVALID_INPUT',
      `${field} is over ${formatBytes(maxBytes)} as stored (pretty JSON): split it into smaller artifacts (nothing was written)`,
    )
}

export function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0
    ? `${bytes / (1024 * 1024)} MiB`
    : bytes % 1024 === 0
      ? `${bytes / 1024} KiB`
      : `${bytes} bytes`
}
