import { withEditor } from '../editor.js'
import { Command, Option } from 'commander'
import type { Confidence, Fact, FactType } from '@foundry/kernel'
import { action, type CommandContext, type CommandOutput } from '../context.js'
import { CONFIDENCES, FACT_TYPES } from '../choices.js'
import { list, readText } from '../input.js'
import { editableOf, fromEditFile, sameFact, toEditFile, type EditableFact } from './edit-file.js'
import { factIdArg } from './fact-arg.js'

interface EditOptions {
  title?: string
  body?: string
  type?: FactType
  tags?: string[]
  confidence?: Confidence
  scope?: string
}

/**
 * `foundry edit <id>`: a new version of an active fact, written through memory_write with
 * `supersedes: <id>`, so the old one stays in its history. The changes come from the flags, or,
 * with none, from `$VISUAL` / `$EDITOR` on a temporary file holding the fact. An edit that changes
 * nothing writes nothing.
 */
export function editCommand(): Command {
  return new Command('edit')
    .description(
      'Correct a fact: write a new version that supersedes it (history keeps the old one), from the flags or, with none, in $EDITOR',
    )
    .argument('<id>', 'the active fact to edit, e.g. fact-0012', factIdArg)
    .option('--title <text>', 'the new title')
    .option('--body <text>', 'the new body; `-` reads stdin')
    .addOption(new Option('--type <type>', 'the new type').choices(FACT_TYPES))
    .option('--tags <list>', 'the new comma-separated tags (replace the old ones; "" for none)', list)
    .addOption(new Option('--confidence <level>', 'the new confidence').choices(CONFIDENCES))
    .option('--scope <scope>', 'the new scope: project | module:<name> | vertical:<name>')
    .action(
      action(async (ctx, id: string, options: EditOptions) => {
        const { kernel } = await ctx.project()
        const fact = await kernel.memory.get(id)
        if (fact.status !== 'active') throw new Error(notActive(fact))
        const before = editableOf(fact)
        const flagged = Object.values(options).some((v) => v !== undefined)
        if (flagged) {
          const body = options.body === '-' ? await readText('-') : options.body
          return write(ctx, id, before, { ...before, ...withoutUndefined({ ...options, body }) })
        }
        return editInEditor(ctx, fact, before)
      }),
    )
}

function editInEditor(ctx: CommandContext, fact: Fact, before: EditableFact): Promise<CommandOutput> {
  return withEditor(
    `${fact.id}.md`,
    toEditFile(fact),
    '--title, --body, --type, --tags, --confidence or --scope',
    (text) => {
      const edited = fromEditFile(text)
      // A key removed takes memory_write's default; title and type have none, so they stay.
      const after: EditableFact = {
        scope: 'project',
        tags: [],
        confidence: 'medium',
        source: 'conversation',
        title: before.title,
        type: before.type,
        ...edited,
      }
      return write(ctx, fact.id, before, after)
    },
  )
}

async function write(
  ctx: CommandContext,
  id: string,
  before: EditableFact,
  after: EditableFact,
): Promise<CommandOutput> {
  if (sameFact(before, after)) return { text: `unchanged: ${id} (nothing written)`, json: { action: 'unchanged', id } }
  const result = await ctx.tool('memory_write', { ...after, supersedes: id })
  return { text: result.text, json: result.structured, ...(result.isError && { exitCode: 1 }) }
}

function notActive(fact: Fact): string {
  if (fact.status === 'superseded')
    return `${fact.id} is superseded${fact.supersededBy ? ` by ${fact.supersededBy}` : ''}: edit the active version (foundry history ${fact.id})`
  return `${fact.id} is forgotten: write it anew with foundry write`
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
