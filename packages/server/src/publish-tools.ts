import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ToolRow } from '@foundry/kernel/tools'

/**
 * `tools/list`: a tool table as the protocol publishes it, which every session pays for before its
 * first question. So: no role (the server's), no `outputSchema` (optional in MCP; the text says
 * what the call did, and `structuredContent` still matches the row's `output`), and each input
 * schema as the model needs it (`publishedSchema`); the server validates against the row's own.
 * The tools named in `taskTools` accept task-augmented calls (`execution.taskSupport: optional`).
 */
export function publishTools(table: readonly ToolRow<never>[], taskTools: readonly string[] = []): Tool[] {
  return table.map(({ name, title, description, input, annotations }) => ({
    name,
    ...(title !== undefined && { title }),
    description,
    inputSchema: publishedSchema(input) as Tool['inputSchema'],
    ...(annotations && { annotations }),
    ...(taskTools.includes(name) && { execution: { taskSupport: 'optional' as const } }),
  }))
}

/**
 * A TypeBox schema without what tells a model nothing: `additionalProperties: false` (the server
 * refuses unknown arguments by name), a record's match-all `patternProperties`, and a description
 * that only repeats the enum it describes. Everything else is kept as it is.
 */
function publishedSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(publishedSchema)
  if (typeof schema !== 'object' || schema === null) return schema
  const node = schema as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === 'additionalProperties' && value === false) continue
    if (key === 'patternProperties' && isMatchAll(value)) continue
    if (key === 'description' && Array.isArray(node.enum) && value === node.enum.join(' | ')) continue
    // Property names are data, not keywords: only their schemas are walked.
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, publishedSchema(v)]))
        : publishedSchema(value)
  }
  return out
}

/** `Type.Record(Type.String(), Type.Unknown())`'s `{ "^.*$": {} }`: any key, any value. */
const isMatchAll = (value: unknown) => JSON.stringify(value) === '{"^.*$":{}}'
