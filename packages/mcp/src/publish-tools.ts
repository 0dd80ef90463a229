import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import type { TSchema } from 'typebox'

/** What `tools/list` publishes of one row of a tool table (foundry's or marbles'). */
export interface PublishableTool {
  name: string
  title: string
  description: string
  inputSchema: TSchema
  outputSchema: TSchema
  annotations: ToolAnnotations
}

/** `tools/list`: a tool table as the protocol publishes it. */
export function publishTools(table: readonly PublishableTool[]): Tool[] {
  return table.map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
    name,
    title,
    description,
    // TypeBox schemas are plain JSON Schema objects: published as they are.
    inputSchema: inputSchema as unknown as Tool['inputSchema'],
    outputSchema: outputSchema as unknown as NonNullable<Tool['outputSchema']>,
    annotations,
  }))
}
