import { Command } from 'commander'
import { action } from '../context.js'
import { factIdArg } from './fact-arg.js'

interface ForgetOptions {
  reason: string
}

/** `foundry forget <id> --reason …`: the memory_forget tool. */
export function forgetCommand(): Command {
  return new Command('forget')
    .description(
      'Forget a wrong fact (memory_forget): it leaves the index and search, and stays on disk with the reason (list --status forgotten)',
    )
    .argument('<id>', 'the active fact to forget, e.g. fact-0012', factIdArg)
    .requiredOption('--reason <text>', 'why the fact is wrong or no longer holds')
    .action(
      action(async (ctx, id: string, options: ForgetOptions) => {
        const result = await ctx.tool('memory_forget', { id, reason: options.reason })
        return { text: result.text, json: result.structured }
      }),
    )
}
