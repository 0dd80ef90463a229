import { Command } from 'commander'
import { action } from '../context.js'
import { factIdArg } from './fact-arg.js'

/** `foundry history <id>`: the supersedes chain through a fact, both ways, oldest first. */
export function historyCommand(): Command {
  return new Command('history')
    .description('The versions of a fact: the supersedes chain through it, both ways, oldest first, one line each')
    .argument('<id>', 'any fact of the chain, e.g. fact-0012', factIdArg)
    .action(
      action(async (ctx, id: string) => {
        const { kernel } = await ctx.project()
        const { text, chain } = await kernel.memory.history(id)
        return { text, json: { id, chain } }
      }),
    )
}
