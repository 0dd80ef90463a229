import type { Statement } from './connection.js'

/**
 * A string as an SQL literal, as pg's `escapeLiteral` writes it (quotes doubled; with a backslash,
 * an `E''` literal with backslashes doubled), by native replaces: a section's deferred writes carry
 * the write catalog's records (tens of kilobytes), which pg's character loop took milliseconds on.
 */
export function quoteLiteral(text: string): string {
  const quoted = text.replaceAll("'", "''")
  return text.includes('\\') ? ` E'${quoted.replaceAll('\\', '\\\\')}'` : `'${quoted}'`
}

/** A value as SQL text: a quoted literal, a number, NULL, or a quoted array literal. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL'
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`inline: cannot write ${value} as SQL`)
    return String(value)
  }
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE'
  if (typeof value === 'string') return quoteLiteral(value)
  if (Array.isArray(value)) return quoteLiteral(arrayText(value))
  throw new Error(`inline: cannot write a ${typeof value} as SQL`)
}

/** PostgreSQL's array input syntax: every element double-quoted, `"` and `\` escaped (`{"a","b\\"c"}`). */
function arrayText(values: readonly unknown[]): string {
  return `{${values.map((v) => (v === null || v === undefined ? 'NULL' : `"${String(v).replace(/[\\"]/g, (c) => `\\${c}`)}"`)).join(',')}}`
}

/**
 * A statement with its parameters written in as literals, so several can travel in one simple-protocol
 * query (one round trip). Only for the storage's own statements: their texts hold `$n` nowhere but as
 * parameters, and their values are strings, numbers, null or arrays of strings.
 */
export function inline(statement: Statement): string {
  const values = statement.values ?? []
  return statement.text.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1
    if (i < 0 || i >= values.length) throw new Error(`inline: no value for $${n}`)
    return literal(values[i])
  })
}
