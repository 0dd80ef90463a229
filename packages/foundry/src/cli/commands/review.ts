import { Command, InvalidArgumentError, Option } from 'commander'
import type { Confidence, FactType } from '@foundry/kernel'
import { action, type CommandContext, type CommandOutput } from '../context.js'
import { CONFIDENCES, FACT_TYPES } from '../choices.js'
import { list, readText } from '../input.js'
import { reviewFlow } from './review-flow.js'

const STATUSES = ['proposed', 'accepted', 'rejected', 'all'] as const

interface ReviewOptions {
  accept?: string
  reject?: string
  reason?: string
  edit?: string
  status: (typeof STATUSES)[number]
  title?: string
  body?: string
  type?: FactType
  tags?: string[]
  confidence?: Confidence
  scope?: string
}

const proposalArg = (value: string) => {
  if (!/^proposal-[0-9]{4,15}$/.test(value))
    throw new InvalidArgumentError('Expected a proposal id, e.g. proposal-0003 (foundry review lists them).')
  return value
}

/**
 * `foundry review`: the queue of proposed facts (memory_review). With no flag, on a terminal, a flow
 * through each waiting proposal; elsewhere, the list. `--accept`, `--reject` and `--edit` decide one
 * proposal without asking.
 */
export function reviewCommand(): Command {
  return new Command('review')
    .description(
      'Review proposed facts (memory_review): accept (written as foundry write would), reject or edit each; a flow on a terminal, the list elsewhere',
    )
    .addOption(
      new Option('--accept <id>', 'write the proposal as a fact').argParser(proposalArg).conflicts(['reject', 'edit']),
    )
    .addOption(
      new Option('--reject <id>', 'reject the proposal: nothing is written').argParser(proposalArg).conflicts(['edit']),
    )
    .option('--reason <text>', 'with --reject: why')
    .addOption(
      new Option('--edit <id>', 'change a waiting proposal with the flags below (it stays in the queue)').argParser(
        proposalArg,
      ),
    )
    .option('--title <text>', 'with --edit: the new title')
    .option('--body <text>', 'with --edit: the new body; `-` reads stdin')
    .addOption(new Option('--type <type>', 'with --edit: the new type').choices(FACT_TYPES))
    .option('--tags <list>', 'with --edit: the new comma-separated tags', list)
    .addOption(new Option('--confidence <level>', 'with --edit: the new confidence').choices(CONFIDENCES))
    .option('--scope <scope>', 'with --edit: the new scope: project | module:<name> | vertical:<name>')
    .addOption(new Option('--status <status>', 'which proposals to list').choices(STATUSES).default('proposed'))
    .action(
      action(async (ctx, options: ReviewOptions, command: Command) => {
        if (options.accept) return decided(await ctx.tool('memory_review', { action: 'accept', id: options.accept }))
        if (options.reject)
          return decided(
            await ctx.tool('memory_review', {
              action: 'reject',
              id: options.reject,
              ...(options.reason && { reason: options.reason }),
            }),
          )
        if (options.edit)
          return decided(
            await ctx.tool('memory_review', { action: 'edit', id: options.edit, changes: await changesOf(options) }),
          )
        const edits = ['title', 'body', 'type', 'tags', 'confidence', 'scope', 'reason'].filter(
          (key) => options[key as keyof ReviewOptions] !== undefined,
        )
        if (edits.length)
          throw new Error(`--${edits[0]} goes with ${edits[0] === 'reason' ? '--reject <id>' : '--edit <id>'}`)
        const interactive =
          options.status === 'proposed' &&
          !command.optsWithGlobals<{ json?: boolean }>().json &&
          process.stdin.isTTY &&
          process.stdout.isTTY
        return interactive ? reviewFlow(ctx) : listed(ctx, options.status)
      }),
    )
}

async function changesOf(options: ReviewOptions): Promise<Record<string, unknown>> {
  const body = options.body === '-' ? await readText('-') : options.body
  const changes = {
    title: options.title,
    body,
    type: options.type,
    tags: options.tags,
    confidence: options.confidence,
    scope: options.scope,
  }
  const given = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined))
  if (!Object.keys(given).length)
    throw new Error('--edit needs what to change: --title, --body, --type, --tags, --confidence or --scope')
  return given
}

function decided(result: { text: string; structured: unknown }): CommandOutput {
  return { text: result.text, json: result.structured }
}

async function listed(ctx: CommandContext, status: ReviewOptions['status']): Promise<CommandOutput> {
  const { kernel } = await ctx.project()
  const { text, proposals } = await kernel.review.list({ status })
  return { text, json: { proposals } }
}
