import { Command } from 'commander'
import { action } from '../context.js'

/** `foundry tokens`: seed 004's accounting (the token_report tool's figures, laid out for a terminal). */
export function tokensCommand(): Command {
  return new Command('tokens')
    .description('Token accounting: what is always loaded, what is retrieved on demand, and what eager loading would cost')
    .action(
      action(async (ctx) => {
        const { kernel } = await ctx.project()
        const { accounting, figures } = await kernel.tokens.report()
        return { text: accounting, json: figures }
      }),
    )
}
