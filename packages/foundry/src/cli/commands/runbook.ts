import { withEditor } from '../editor.js'
import { Command } from 'commander'
import type { Kernel, Runbook } from '@foundry/kernel'
import { action, type CommandOutput } from '../context.js'
import { readText } from '../input.js'
import { fromRunbookFile, hasFrontMatter, toRunbookFile, type RunbookText } from './runbook-file.js'

interface RunbookFlags {
  title?: string
  trigger?: string
  body?: string
  file?: string
}

/**
 * `foundry runbook add|edit|remove`: write the project's runbooks on either storage, through the
 * kernel's `runbooks.put` (validated: an error names the field) and `runbooks.remove`. Listing and
 * reading stay `foundry runbooks [slug]`.
 */
export function runbookCommand(): Command {
  const add = withFlags(new Command('add'))
    .description(
      'Write a new runbook: --title, an optional --trigger, and its steps from --body, --file or stdin (a runbook file with front matter gives its title and trigger too)',
    )
    .argument('<slug>', 'its name: lowercase letters, digits, . _ and -, e.g. deploy-production')
    .action(
      action(async (ctx, slug: string, flags: RunbookFlags) => {
        const { kernel, storage } = await ctx.project()
        if (await find(kernel, slug))
          throw new Error(`Runbook "${slug}" exists: change it with foundry runbook edit ${slug}, or remove it first`)
        const text = await bodyText(flags, true)
        const given = text === undefined ? { body: '' } : parse(text, flags, slug)
        const runbook = applyFlags({ slug, body: given.body, ...pick(given) }, flags)
        await kernel.runbooks.put(runbook)
        return {
          text: `added: runbook ${slug} (${storage.locate('runbooks', slug)})`,
          json: { action: 'added', runbook },
        }
      }),
    )
  const edit = withFlags(new Command('edit'))
    .description(
      'Change a runbook: the flags given replace those fields (--trigger "" removes it); with none, edit its file text in $EDITOR',
    )
    .argument('<slug>', 'the runbook to change')
    .action(
      action(async (ctx, slug: string, flags: RunbookFlags) => {
        const { kernel, storage } = await ctx.project()
        const { runbook: before } = await kernel.runbooks.get({ slug })
        const flagged = Object.values(flags).some((v) => v !== undefined)
        const store = async (after: Runbook): Promise<CommandOutput> => {
          if (same(before, after))
            return {
              text: `unchanged: runbook ${slug} (nothing written)`,
              json: { action: 'unchanged', runbook: before },
            }
          await kernel.runbooks.put(after)
          return {
            text: `updated: runbook ${slug} (${storage.locate('runbooks', slug)})`,
            json: { action: 'updated', runbook: after },
          }
        }
        // A title deleted in the editor is left for runbooks.put to name.
        if (!flagged)
          return inEditor(before, (edited) => store({ slug, body: edited.body, ...pick(edited) } as Runbook))
        const text = await bodyText(flags, false)
        const given = text === undefined ? {} : parse(text, flags, slug)
        return store(applyFlags({ ...before, ...given, slug }, flags))
      }),
    )
  const remove = new Command('remove')
    .description('Delete a runbook')
    .argument('<slug>', 'the runbook to delete')
    .action(
      action(async (ctx, slug: string) => {
        const { kernel } = await ctx.project()
        await kernel.runbooks.remove(slug)
        return { text: `removed: runbook ${slug}`, json: { action: 'removed', slug } }
      }),
    )
  return new Command('runbook')
    .description('Add, edit or remove a runbook (list and read them with foundry runbooks)')
    .addCommand(add)
    .addCommand(edit)
    .addCommand(remove)
}

function withFlags(command: Command): Command {
  return command
    .option('--title <text>', 'what the procedure does, e.g. "Deploy to production"')
    .option('--trigger <phrases>', 'comma-separated phrases; a prompt containing one brings the runbook in')
    .option('--body <text>', 'the steps, in markdown (numbered lines); `-` reads stdin')
    .option(
      '--file <path>',
      'read the steps, or a whole runbook file with front matter, from this file; `-` reads stdin',
    )
}

/** The flags win over what a file gave; `--trigger ""` removes the trigger. */
function applyFlags(runbook: Partial<Runbook> & { slug: string; body: string }, flags: RunbookFlags): Runbook {
  const out: Partial<Runbook> = { ...runbook }
  if (flags.title !== undefined) out.title = flags.title
  if (flags.trigger !== undefined) out.trigger = flags.trigger
  if (!out.trigger?.trim()) delete out.trigger
  return out as Runbook
}

/** The text of --body, --file or, for `add` with neither, stdin when it is not a terminal; undefined when none was given. */
async function bodyText(flags: RunbookFlags, stdinByDefault: boolean): Promise<string | undefined> {
  if (flags.body !== undefined && flags.file !== undefined) throw new Error('Pass either --body or --file, not both')
  if (flags.body !== undefined) return flags.body === '-' ? readText('-') : flags.body
  if (flags.file !== undefined) return readText(flags.file)
  if (!stdinByDefault) return undefined
  if (process.stdin.isTTY) throw new Error('No steps: pass --body, --file, or pipe them on stdin')
  return readText('-')
}

/** A body alone, or a runbook file (front matter first), whose slug, if it names one, must be `slug`. */
function parse(text: string, flags: RunbookFlags, slug: string): RunbookText {
  if (!hasFrontMatter(text)) return { body: text.trim() }
  const source = flags.file === undefined || flags.file === '-' ? 'stdin' : flags.file
  const given = fromRunbookFile(text, source)
  if (given.slug !== undefined && given.slug !== slug)
    throw new Error(`${source} names slug ${given.slug}, not ${slug}: make them agree`)
  return given
}

const pick = (given: RunbookText) => ({
  ...(given.title !== undefined && { title: given.title }),
  ...(given.trigger !== undefined && { trigger: given.trigger }),
})

const same = (a: Runbook, b: Runbook) =>
  a.title === b.title && (a.trigger ?? '') === (b.trigger ?? '') && a.body.trim() === b.body.trim()

/** The runbook `slug`, or undefined when there is none. */
async function find(kernel: Kernel, slug: string): Promise<Runbook | undefined> {
  const { isFoundryError } = await import('@foundry/kernel')
  try {
    return (await kernel.runbooks.get({ slug })).runbook
  } catch (error) {
    if (isFoundryError(error, 'NOT_FOUND')) return undefined
    throw error
  }
}

/** Open the runbook's file text in `$VISUAL`/`$EDITOR`, then `store` what was saved; a failed store keeps the edited file and says where. */
function inEditor(runbook: Runbook, store: (edited: RunbookText) => Promise<CommandOutput>): Promise<CommandOutput> {
  return withEditor(`${runbook.slug}.md`, toRunbookFile(runbook), '--title, --trigger, --body or --file', (text) =>
    store(fromRunbookFile(text, 'the edited file')),
  )
}
