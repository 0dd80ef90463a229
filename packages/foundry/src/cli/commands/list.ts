import { Command, Option } from 'commander'
import type { Fact, FactType } from '@foundry/kernel'
import { action } from '../context.js'
import { FACT_STATUSES, FACT_TYPES } from '../choices.js'

interface ListOptions {
  type?: FactType
  status: (typeof FACT_STATUSES)[number]
}

/** `foundry list`: every fact of a status, one line each, in id order. */
export function listCommand(): Command {
  return new Command('list')
    .description('List facts, one line each: active by default')
    .addOption(new Option('--type <type>', 'only facts of this type').choices(FACT_TYPES))
    .addOption(new Option('--status <status>', 'which facts').choices(FACT_STATUSES).default('active'))
    .action(
      action(async (ctx, options: ListOptions) => {
        const { kernel } = await ctx.project()
        const facts = await kernel.memory.list({ status: options.status, ...(options.type && { type: options.type }) })
        const none = ['No', options.status === 'all' ? '' : options.status, options.type, 'facts.'].filter(Boolean).join(' ')
        return { text: facts.length ? facts.map(line).join('\n') : none, json: { facts } }
      }),
    )
}

function line(fact: Fact): string {
  const notes = [
    fact.scope === 'project' ? '' : fact.scope,
    fact.supersededBy ? `superseded by ${fact.supersededBy}` : fact.status === 'superseded' ? 'superseded' : '',
    fact.status === 'forgotten' ? `forgotten${fact.forgottenReason ? `: ${fact.forgottenReason}` : ''}` : '',
    fact.expires ? `expires ${fact.expires}` : '',
  ].filter(Boolean)
  return `${fact.id} · ${fact.type} · ${fact.confidence} · ${fact.title}${notes.length ? ` (${notes.join(', ')})` : ''}`
}
