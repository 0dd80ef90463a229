import { FACT_TYPES, FoundryError, stateOf, type Fact, type FactType, type Kernel } from '@foundry/kernel'
import type { Project } from '@foundry/project'
import type { EditAnswer, FactAnswer, FactRow, FactsAnswer, ForgetAnswer } from './wire.js'

type FactListOptions = NonNullable<Parameters<Kernel['memory']['list']>[0]>
type SearchHit = Awaited<ReturnType<Kernel['memory']['search']>>['hits'][number]

const STATUSES = ['active', 'superseded', 'expired', 'forgotten', 'all'] as const
type Status = NonNullable<FactListOptions['status']>
const isStatus = (text: string): text is Status => (STATUSES as readonly string[]).includes(text)
const isType = (text: string): text is FactType => (FACT_TYPES as readonly string[]).includes(text)
const today = () => new Date().toISOString().slice(0, 10)
/** How many facts a listing shows, newest first (a page renders them at once: 100 stay quick to read and draw). */
const LISTED = 100

function rowOf(fact: Fact, hit?: SearchHit): FactRow {
  return {
    id: fact.id,
    title: fact.title,
    type: fact.type,
    scope: fact.scope,
    state: stateOf(fact, today()),
    created: fact.created,
    ...(fact.author && { author: fact.author }),
    excerpt: fact.body.length > 240 ? `${fact.body.slice(0, 239)}…` : fact.body,
    ...(hit && { relevance: Math.round(hit.relevance * 100) / 100 }),
  }
}

/**
 * What the Memory page shows: with a query, the project's own search (`memory.search`, active
 * facts, best first); without one, `memory.list` by status. Type and status are checked here, at
 * the edge, with the fix in the message.
 */
export async function findFacts(project: Project, params: URLSearchParams): Promise<FactsAnswer> {
  const query = (params.get('q') ?? '').trim()
  const type = params.get('type') || undefined
  const status = params.get('status') || 'active'
  if (type !== undefined && !isType(type))
    throw new FoundryError(
      'INVALID_INPUT',
      `type: one of ${FACT_TYPES.join(', ')}, got ${JSON.stringify(type.slice(0, 40))}`,
    )
  if (!isStatus(status))
    throw new FoundryError(
      'INVALID_INPUT',
      `status: one of ${STATUSES.join(', ')}, got ${JSON.stringify(status.slice(0, 40))}`,
    )
  if (query && status === 'active') {
    const result = await project.kernel.memory.search({ query: query.slice(0, 2000), limit: 25, ...(type && { type }) })
    return {
      mode: 'search',
      facts: result.hits.map((h) => rowOf(h.fact, h)),
      ...(result.dropped && { dropped: result.dropped }),
      ...(result.missing && { missing: result.missing }),
    }
  }
  return listing(project, { status, ...(type && { type }) })
}

/** The listings answered since the facts last changed, by project: `revision day` and the answers by filter. */
const listings = new WeakMap<Project, { at: string; answers: Map<string, FactsAnswer> }>()

/**
 * The newest LISTED facts of a filter. Active facts of every type come from the write catalog, so a
 * listing reads LISTED facts, not every one; and an answer is kept until the facts change (their
 * storage revision) or the day does (facts expire), so pages opened between writes read nothing.
 */
async function listing(project: Project, options: FactListOptions): Promise<FactsAnswer> {
  const at = `${await project.storage.revision('facts')} ${today()}`
  let kept = listings.get(project)
  if (kept?.at !== at) listings.set(project, (kept = { at, answers: new Map() }))
  const key = `${options.status} ${options.type ?? ''}`
  const known = kept.answers.get(key)
  if (known) return known
  const { facts, total } = await project.kernel.memory.page({ ...options, limit: LISTED, newest: true })
  const answer: FactsAnswer = { mode: 'list', facts: facts.map((f) => rowOf(f)), total }
  kept.answers.set(key, answer)
  return answer
}

/** A fact's page: the fact whole, what it is now, and its supersede chain oldest first. */
export async function factPage(project: Project, id: string): Promise<FactAnswer> {
  const fact = await project.kernel.memory.get(id)
  const history = await project.kernel.memory.history(id)
  return {
    fact,
    state: stateOf(fact, today()),
    chain: history.chain.map((e) => ({ ...rowOf(e.fact), state: e.state })),
  }
}

const EDITABLE = ['title', 'body', 'type', 'scope', 'tags', 'confidence', 'source', 'expires'] as const

/**
 * Edit: a new fact that supersedes `id` (facts are never changed in place), written by `author`.
 * The kernel validates the fields and names the one at fault.
 */
export async function editFact(
  project: Project,
  id: string,
  body: Record<string, unknown>,
  author: string,
): Promise<EditAnswer> {
  const unknown = Object.keys(body).filter((k) => !(EDITABLE as readonly string[]).includes(k))
  if (unknown.length)
    throw new FoundryError('INVALID_INPUT', `${unknown[0]}: not editable; send ${EDITABLE.join(', ')}`)
  const current = await project.kernel.memory.get(id)
  if (stateOf(current, today()) !== 'active')
    throw new FoundryError(
      'INVALID_INPUT',
      `${id} is ${stateOf(current, today())}: only an active fact can be edited; edit the fact that replaced it`,
    )
  const input: Record<string, unknown> = { supersedes: id }
  for (const key of EDITABLE) if (body[key] !== undefined) input[key] = body[key]
  const result = await project.kernel.memory.write(input, { author })
  return {
    id: result.id,
    action: result.action,
    ...(result.supersedes && { supersedes: result.supersedes }),
    text: result.text,
  }
}

/** Forget: the kernel's `memory.forget`, with the reason required here so the message names the field. */
export async function forgetFact(project: Project, id: string, body: Record<string, unknown>): Promise<ForgetAnswer> {
  const reason = typeof body.reason === 'string' ? body.reason.trim() : ''
  if (!reason) throw new FoundryError('INVALID_INPUT', 'reason: say why the fact is forgotten (at most 500 characters)')
  const result = await project.kernel.memory.forget(id, reason)
  return { id: result.id, reason: result.reason, forgotten: result.forgotten, text: result.text }
}
