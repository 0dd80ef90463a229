import { Command } from 'commander'
import { action } from '../context.js'

/** `foundry runbooks [slug]`: the runbook_list and runbook_get tools. */
export function runbooksCommand(): Command {
  return new Command('runbooks')
    .description('List runbooks with their triggers (runbook_list), or print one (runbook_get)')
    .argument('[slug]', 'the runbook to print')
    .action(
      action(async (ctx, slug: string | undefined) => {
        const result = slug === undefined ? await ctx.tool('runbook_list', {}) : await ctx.tool('runbook_get', { slug })
        return { text: result.text, json: result.structured }
      }),
    )
}
