import { Command, Option } from 'commander'
import type { Fact, FactType } from '@foundry/kernel'
import { action } from '../context.js'
import { FACT_STATUSES, FACT_TYPES } from '../choices.js'
import { integer } from '../input.js'

/** Lines `foundry list` prints without `--limit` or `--all`: a page, then how many more. */
export const LIST_PAGE = 100

interface ListOptions {
  type?: FactType
  status: (typeof FACT_STATUSES)[number]
  limit?: number
  all?: boolean
}

/**
 * `foundry list`: the facts of a status, one line each, in id order. Text shows the first
 * `LIST_PAGE` (or `--limit`) and a last line naming how many more and `--all`; `--json` lists
 * every fact unless `--limit` is given. Active facts page from the write catalog: a page reads its
 * facts only, whatever the memory's size.
 */
export function listCommand(): Command {
  return new Command('list')
    .description(`List facts, one line each: active by default, the first ${LIST_PAGE} unless --limit or --all`)
    .addOption(new Option('--type <type>', 'only facts of this type').choices(FACT_TYPES))
    .addOption(new Option('--status <status>', 'which facts').choices(FACT_STATUSES).default('active'))
    .option('--limit <n>', `at most n facts (default ${LIST_PAGE}; --json: all)`, integer)
    .option('--all', 'every fact, however many')
    .action(
      action(async (ctx, options: ListOptions, command: Command) => {
        if (options.limit !== undefined && options.limit < 1)
          throw new Error('--limit must be a whole number of at least 1 (or use --all)')
        if (options.limit !== undefined && options.all)
          throw new Error('--limit and --all ask for different things: give one of them')
        const { kernel } = await ctx.project()
        const filter = { status: options.status, ...(options.type && { type: options.type }) }
        const json = command.optsWithGlobals<{ json?: boolean }>().json
        const limit = options.all ? undefined : (options.limit ?? (json ? undefined : LIST_PAGE))
        const { facts, total } =
          limit === undefined
            ? wholeList(await kernel.memory.list(filter))
            : await kernel.memory.page({ ...filter, limit })
        const none = ['No', options.status === 'all' ? '' : options.status, options.type, 'facts.']
          .filter(Boolean)
          .join(' ')
        const more = total - facts.length
        const text = facts.length
          ? facts.map(line).join('\n') + (more > 0 ? `\n${more} more: foundry list --all (or --limit <n>)` : '')
          : none
        return { text, json: limit === undefined ? { facts } : { facts, total } }
      }),
    )
}

const wholeList = (facts: Fact[]) => ({ facts, total: facts.length })

function line(fact: Fact): string {
  const notes = [
    fact.scope === 'project' ? '' : fact.scope,
    fact.supersededBy ? `superseded by ${fact.supersededBy}` : fact.status === 'superseded' ? 'superseded' : '',
    fact.status === 'forgotten' ? `forgotten${fact.forgottenReason ? `: ${fact.forgottenReason}` : ''}` : '',
    fact.expires ? `expires ${fact.expires}` : '',
  ].filter(Boolean)
  return `${fact.id} · ${fact.type} · ${fact.confidence} · ${fact.title}${notes.length ? ` (${notes.join(', ')})` : ''}`
}
