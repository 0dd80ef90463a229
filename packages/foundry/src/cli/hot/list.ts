import type { Fact, FactType } from '@foundry/kernel'
import type { FACT_STATUSES } from '../choices.js'
import type { CommandContext, CommandOutput } from '../context.js'

/** Lines `foundry list` prints without `--limit` or `--all`: a page, then how many more. */
export const LIST_PAGE = 100

export interface ListOptions {
  type?: FactType
  status: (typeof FACT_STATUSES)[number]
  limit?: number
  all?: boolean
}

/**
 * What `foundry list` prints: the facts of a status, one line each, in id order. Text shows the first
 * `LIST_PAGE` (or `--limit`) and a last line naming how many more and `--all`; `json` lists every
 * fact unless `limit` is given. Active facts page from the write catalog: a page reads its facts
 * only, whatever the memory's size.
 */
export async function listFacts(ctx: CommandContext, options: ListOptions, json: boolean): Promise<CommandOutput> {
  if (options.limit !== undefined && options.limit < 1)
    throw new Error('--limit must be a whole number of at least 1 (or use --all)')
  if (options.limit !== undefined && options.all)
    throw new Error('--limit and --all ask for different things: give one of them')
  const { kernel } = await ctx.project()
  const filter = { status: options.status, ...(options.type && { type: options.type }) }
  const limit = options.all ? undefined : (options.limit ?? (json ? undefined : LIST_PAGE))
  const { facts, total } =
    limit === undefined ? wholeList(await kernel.memory.list(filter)) : await kernel.memory.page({ ...filter, limit })
  const none = ['No', options.status === 'all' ? '' : options.status, options.type, 'facts.'].filter(Boolean).join(' ')
  const more = total - facts.length
  const text = facts.length
    ? facts.map(line).join('\n') + (more > 0 ? `\n${more} more: foundry list --all (or --limit <n>)` : '')
    : none
  return { text, json: limit === undefined ? { facts } : { facts, total } }
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
