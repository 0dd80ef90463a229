import { Command } from 'commander'
import { action } from '../context.js'
import { factIdArg } from './fact-arg.js'

/** `foundry show <id>`: one fact, whatever its status, as memory_search shows it, then its status and links. */
export function showCommand(): Command {
  return new Command('show')
    .description(
      'One fact by id, whatever its status: its block, its status, and what it supersedes or is superseded by',
    )
    .argument('<id>', 'the fact id, e.g. fact-0012', factIdArg)
    .action(
      action(async (ctx, id: string) => {
        const [{ kernel }, { dayOf, renderFactBlock, stateOf, statusLine }] = await Promise.all([
          ctx.project(),
          import('@foundry/kernel'),
        ])
        const fact = await kernel.memory.get(id)
        const today = dayOf(new Date())
        const lines = [renderFactBlock(fact), statusLine(fact, today) ?? 'status: active']
        if (fact.supersedes) lines.push(`supersedes: ${fact.supersedes}`)
        // A superseded fact's status line names its successor already.
        if (fact.supersededBy && fact.status !== 'superseded') lines.push(`superseded by: ${fact.supersededBy}`)
        return { text: lines.join('\n'), json: { fact, state: stateOf(fact, today) } }
      }),
    )
}
