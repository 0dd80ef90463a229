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
  /**
   * Only the text reaches MCP clients: no `outputSchema` is published and no `structuredContent`
   * sent (`outputSchema` then describes `foundry <command> --json` alone). For a tool whose text is
   * the answer: Claude Code, Codex, OpenCode and Copilot CLI give the model the structured content
   * in place of the text when a result has both, and both would double what the client reads.
   */
  textOnly?: boolean
}

/** `tools/list`: a tool table as the protocol publishes it. */
export function publishTools(table: readonly PublishableTool[]): Tool[] {
  return table.map(({ name, title, description, inputSchema, outputSchema, annotations, textOnly }) => ({
    name,
    title,
    description,
    // TypeBox schemas are plain JSON Schema objects: published as they are.
    inputSchema: inputSchema as unknown as Tool['inputSchema'],
    ...(!textOnly && { outputSchema: outputSchema as unknown as NonNullable<Tool['outputSchema']> }),
    annotations,
  }))
}
