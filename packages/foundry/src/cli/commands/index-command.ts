import { Command } from 'commander'
import { action } from '../context.js'

/** `foundry index`: the memory_index tool. */
export function indexCommand(): Command {
  return new Command('index')
    .description('Rebuild .foundry/memory/INDEX.md from every stored fact (memory_index) and report its budget usage')
    .action(
      action(async (ctx) => {
        const result = await ctx.tool('memory_index', {})
        return { text: result.text, json: result.structured }
      }),
    )
}
