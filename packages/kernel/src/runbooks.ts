import { FoundryError } from './errors.js'
import { definePlugin, type PluginHost } from './plugin.js'
import { RunbookGetInputSchema } from './schema/inputs.js'
import { RunbookSchema, SLUG_PATTERN, type Runbook } from './schema/records.js'
import { lazyValidator, validator } from './schema/validate.js'

export interface RunbookListResult {
  text: string
  runbooks: Array<{ slug: string; title: string; trigger?: string }>
}

export interface RunbookGetResult {
  text: string
  runbook: Runbook
}

const getInput = lazyValidator(RunbookGetInputSchema)
const runbookRecord = validator(RunbookSchema)
const SLUG = new RegExp(SLUG_PATTERN)

/** The trigger phrases of a runbook: its `trigger` split on commas, lowercased. */
export function triggerPhrases(runbook: Pick<Runbook, 'trigger'>): string[] {
  return (runbook.trigger ?? '')
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean)
}

/** True when one of the runbook's trigger phrases appears in the text as whole words. */
export function isTriggeredBy(runbook: Pick<Runbook, 'trigger'>, text: string): boolean {
  const haystack = ` ${text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ')} `
  return triggerPhrases(runbook).some((phrase) => {
    const needle = phrase.replace(/[^\p{L}\p{N}]+/gu, ' ').trim()
    return needle !== '' && haystack.includes(` ${needle} `)
  })
}

export function renderRunbook(runbook: Runbook): string {
  const body = runbook.body.trim()
  if (/^#\s/.test(body)) return `${body}\n`
  const trigger = runbook.trigger ? `\n_trigger: ${runbook.trigger}_\n` : ''
  return `# ${runbook.title}\n${trigger}\n${body}\n`
}

/** Runbooks: the project's repeatable procedures, listed, fetched and matched against prompts. */
export interface RunbookService {
  /** `runbook_list`: every runbook with its trigger. */
  list(): Promise<RunbookListResult>
  /** `runbook_get`: one runbook in full. Throws NOT_FOUND listing the slugs that exist. */
  get(input: unknown): Promise<RunbookGetResult>
  /** Runbooks whose trigger phrase appears in `text` (a prompt). */
  triggeredBy(text: string): Promise<Runbook[]>
  /** Store a runbook, created or replaced (validated; the slug is its key). Throws INVALID_INPUT naming the field. */
  put(runbook: unknown): Promise<void>
  /** Delete the runbook `slug`. Throws NOT_FOUND listing the slugs that exist when there is none. */
  remove(slug: string): Promise<void>
}

export function createRunbooks(ctx: PluginHost): RunbookService {
  const all = () => ctx.storage.list('runbooks', { onProblem: ctx.onProblem })

  async function list(): Promise<RunbookListResult> {
    const runbooks = await all()
    const text = runbooks.length
      ? runbooks.map((r) => `- **${r.slug}** — ${r.title}${r.trigger ? `\n  trigger: ${r.trigger}` : ''}`).join('\n')
      : `No runbooks yet. ${ctx.hints.noRunbooks}`
    return {
      text,
      runbooks: runbooks.map(({ slug, title, trigger }) => (trigger ? { slug, title, trigger } : { slug, title })),
    }
  }

  const unknown = async (slug: string) => {
    const slugs = await ctx.storage.keys('runbooks')
    return new FoundryError(
      'NOT_FOUND',
      `Unknown runbook "${slug}". Available: ${slugs.length ? slugs.join(', ') : 'none'}.`,
    )
  }
  const isSlug = (slug: unknown): slug is string => typeof slug === 'string' && SLUG.test(slug)

  async function get(raw: unknown): Promise<RunbookGetResult> {
    const { slug } = getInput.parse(raw, 'runbook_get input')
    const runbook = isSlug(slug) ? await ctx.storage.get('runbooks', slug) : undefined
    if (!runbook) throw await unknown(slug)
    return { text: renderRunbook(runbook), runbook }
  }

  /** Runbooks whose trigger appears in `text` (the prompt-context hook's second source). */
  async function triggeredBy(text: string): Promise<Runbook[]> {
    return (await all()).filter((r) => isTriggeredBy(r, text))
  }

  async function put(raw: unknown): Promise<void> {
    const runbook = runbookRecord.parse(raw, 'runbook')
    if (!runbook.title.trim())
      throw new FoundryError(
        'INVALID_INPUT',
        'Invalid runbook: title must not be blank: name the procedure (e.g. "Deploy to production")',
      )
    if (!runbook.body.trim())
      throw new FoundryError(
        'INVALID_INPUT',
        'Invalid runbook: body must not be empty: write the steps, one numbered line each',
      )
    await ctx.storage.put('runbooks', runbook.slug, runbook)
  }

  async function remove(slug: string): Promise<void> {
    if (!isSlug(slug) || !(await ctx.storage.delete('runbooks', slug))) throw await unknown(String(slug))
  }

  return { list, get, triggeredBy, put, remove }
}

export const runbooksPlugin = definePlugin({
  name: 'runbooks',
  setup: createRunbooks,
  trace: {
    list: { kind: 'runbook_list', data: (r) => ({ runbooks: r.runbooks.length }) },
    get: 'runbook_get',
    triggeredBy: { kind: 'runbook_match', data: (r) => ({ runbooks: r.length }) },
    put: 'runbook_put',
    remove: 'runbook_remove',
  },
})
