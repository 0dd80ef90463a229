import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ToolRow } from '@foundry/kernel/tools'

/** `tools/list`: a tool table as the protocol publishes it (the role is the server's, never published). */
export function publishTools(table: readonly ToolRow<never>[]): Tool[] {
  return table.map(({ name, title, description, input, output, annotations, textOnly }) => ({
    name,
    ...(title !== undefined && { title }),
    description,
    // TypeBox schemas are plain JSON Schema objects: published as they are.
    inputSchema: input as unknown as Tool['inputSchema'],
    ...(output && !textOnly && { outputSchema: output as unknown as NonNullable<Tool['outputSchema']> }),
    ...(annotations && { annotations }),
  }))
}
