import type { FactType } from '@foundry/kernel'
import type { CommandContext, CommandOutput } from '../context.js'

export interface SearchOptions {
  type?: FactType
  scope?: string
  limit?: number
}

/** What `foundry search` prints: the memory_search tool's answer. */
export async function searchFacts(ctx: CommandContext, query: string, options: SearchOptions): Promise<CommandOutput> {
  const result = await ctx.tool('memory_search', { query, ...options })
  return { text: result.text, json: result.structured }
}
