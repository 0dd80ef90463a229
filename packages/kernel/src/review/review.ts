import { isoTime } from '../clock.js'
import { FoundryError } from '../errors.js'
import { memoryPlugin } from '../memory/memory.js'
import { dayOf, normalizeText, quoteFactText } from '../memory/facts.js'
import type { WriteResult } from '../memory/service.js'
import { definePlugin, type PluginHost } from '../plugin.js'
import { CONFIDENCES, FactInputSchema, type FactInput } from '../schema/fact.js'
import { WRITE_BATCH_MAX } from '../schema/inputs.js'
import { PROPOSALS_COLLECTION, ProposalEditSchema, type Proposal, type ProposalStatus } from '../schema/proposal.js'
import { lazyValidator, validator } from '../schema/validate.js'
import { checkFactInput } from '../memory/plan-write.js'

const factInput = validator(FactInputSchema)
const editInput = lazyValidator(ProposalEditSchema)

/** Who proposes, besides the facts: kept on each proposal. */
export interface ProposeOptions {
  /** A token's name, or `capture` for a distilled session; accepting writes it as the fact's `author`. */
  author?: string
  /** Where the proposals come from (a session or run id), one line. */
  origin?: string
}

export interface ProposeResult {
  /** One line a fact: `proposed: proposal-0003 "title"`, `accepted: … → created: fact-0012`, `exists: …`. */
  text: string
  /** Each fact's outcome, in the order given. */
  results: Array<{ action: 'proposed' | 'accepted' | 'duplicate'; id: string; factId?: string }>
}

export interface ReviewListResult {
  /** One block a proposal, oldest first, or one line saying the queue is empty. */
  text: string
  proposals: Proposal[]
}

/** Accepting answers as `memory_write` does, with the proposal's id beside the fact's. */
export interface AcceptResult extends WriteResult {
  proposal: string
}

export interface DecisionResult {
  text: string
  proposal: Proposal
}

/** The review queue: facts proposed (by a session's capture run, an agent, a person), then accepted, edited or rejected. */
export interface ReviewService {
  /**
   * Queue facts for review, each checked as `memory_write` checks it (INVALID_INPUT names `facts[i]`
   * and the field; nothing is stored then). A fact identical to one already waiting is not queued
   * twice. Those the configuration's `review.autoAccept` covers are written at once through the
   * normal write path instead.
   */
  propose(inputs: unknown[], options?: ProposeOptions): Promise<ProposeResult>
  /** Proposals of a status (default `proposed`, or `all`), oldest first. */
  list(options?: { status?: ProposalStatus | 'all' }): Promise<ReviewListResult>
  /** Write a waiting proposal through `memory.write` (dedupe, supersede, similar facts), then mark it accepted. Throws NOT_FOUND, or INVALID_INPUT when already decided. */
  accept(id: string): Promise<AcceptResult>
  /** Mark a waiting proposal rejected, with an optional reason; nothing is written to memory. */
  reject(id: string, reason?: string): Promise<DecisionResult>
  /** Change a waiting proposal's fields (title, body, type, scope, tags, confidence); it stays in the queue. Throws INVALID_INPUT naming the field. */
  edit(id: string, changes: unknown): Promise<DecisionResult>
}

const numberOf = (id: string) => Number(id.slice('proposal-'.length))
const proposalId = (n: number) => `proposal-${String(n).padStart(4, '0')}`
const sameFact = (a: FactInput, b: FactInput) =>
  a.type === b.type &&
  normalizeText(a.title) === normalizeText(b.title) &&
  normalizeText(a.body) === normalizeText(b.body)

/** One proposal as the queue shows it: its text quoted as a fact's is (it comes from a model or a transcript). */
export function renderProposal(p: Proposal): string {
  const f = p.fact
  const from = [p.author && `by ${p.author}`, p.origin && `from ${p.origin}`].filter(Boolean).join(' ')
  const state =
    p.status === 'accepted'
      ? `\naccepted as ${p.factId}`
      : p.status === 'rejected'
        ? `\nrejected${p.reason ? `: ${p.reason}` : ''}`
        : ''
  return [
    `### ${p.id} · ${f.type} · confidence ${f.confidence ?? 'medium'}${from ? ` · ${from}` : ''}`,
    `**${quoteFactText(f.title)}**`,
    quoteFactText(f.body.trim()),
    `_source: ${quoteFactText(f.source ?? 'conversation')} · scope: ${f.scope ?? 'project'}_${state}`,
  ].join('\n')
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose returned object holds the methods; each method is short
export function createReview(ctx: PluginHost): ReviewService {
  const { storage } = ctx
  const memory = ctx.use(memoryPlugin)
  const now = () => isoTime(ctx.now())

  /** Whether the configuration writes this fact without review. */
  function autoAccepted(fact: FactInput): boolean {
    const { types, minConfidence } = ctx.config.review.autoAccept
    return (
      types.includes(fact.type) &&
      CONFIDENCES.indexOf(fact.confidence ?? 'medium') <= CONFIDENCES.indexOf(minConfidence)
    )
  }

  /** One fact as `memory_write` checks it; throws INVALID_INPUT prefixed with `where`. */
  function checkOne(item: unknown, where: string): FactInput {
    if (!factInput.check(item))
      throw new FoundryError('INVALID_INPUT', `${where}: ${factInput.problems(item).join('; ')}`)
    try {
      checkFactInput(item, dayOf(ctx.now()))
    } catch (error) {
      throw new FoundryError('INVALID_INPUT', `${where}: ${(error as Error).message}`, { cause: error })
    }
    return item
  }

  function checked(raw: unknown[]): FactInput[] {
    if (!Array.isArray(raw) || raw.length === 0)
      throw new FoundryError(
        'INVALID_INPUT',
        'Invalid proposals: facts must be a non-empty array of facts, each with title, body and type',
      )
    if (raw.length > WRITE_BATCH_MAX)
      throw new FoundryError(
        'INVALID_INPUT',
        `Invalid proposals: ${raw.length} facts; the limit is ${WRITE_BATCH_MAX} a call: split them`,
      )
    return raw.map((item, i) => checkOne(item, `Invalid proposal: facts[${i}]`))
  }

  async function propose(raw: unknown[], options: ProposeOptions = {}): Promise<ProposeResult> {
    const inputs = checked(raw)
    const queued = inputs.filter((f) => !autoAccepted(f))
    const results: ProposeResult['results'] = []
    const lines: string[] = []
    // The queued proposals in one section and one putMany: numbered without gaps, never half a batch on a transactional store.
    const stored = await storage.exclusive(async () => {
      const waiting = (await storage.list(PROPOSALS_COLLECTION)).filter((p) => p.status === 'proposed')
      let next = Math.max(0, ...(await storage.keys(PROPOSALS_COLLECTION)).map(numberOf)) + 1
      const fresh: Proposal[] = []
      const outcome = new Map<FactInput, { action: 'proposed' | 'duplicate'; id: string }>()
      for (const fact of queued) {
        const same = [...waiting, ...fresh].find((p) => sameFact(p.fact, fact))
        if (same) {
          outcome.set(fact, { action: 'duplicate', id: same.id })
          continue
        }
        const proposal: Proposal = {
          id: proposalId(next++),
          status: 'proposed',
          fact,
          created: now(),
          ...(options.author && { author: options.author }),
          ...(options.origin && { origin: options.origin }),
        }
        fresh.push(proposal)
        outcome.set(fact, { action: 'proposed', id: proposal.id })
      }
      if (fresh.length)
        await storage.putMany(
          PROPOSALS_COLLECTION,
          fresh.map((p) => ({ key: p.id, value: p })),
        )
      return outcome
    })
    const direct = inputs.filter(autoAccepted)
    const written = direct.length
      ? (await memory.writeMany(direct, options.author ? { author: options.author } : {})).results
      : []
    let w = 0
    for (const fact of inputs) {
      const queuedAs = stored.get(fact)
      if (queuedAs) {
        results.push(queuedAs)
        lines.push(
          queuedAs.action === 'proposed'
            ? `proposed: ${queuedAs.id} "${fact.title}"`
            : `exists: ${queuedAs.id} (the same proposal is waiting, nothing queued)`,
        )
        continue
      }
      const result = written[w++]!
      results.push({ action: 'accepted', id: result.id, factId: result.id })
      lines.push(`accepted at once (review.autoAccept): ${result.text.slice(0, result.text.indexOf('\n'))}`)
    }
    return { text: lines.join('\n'), results }
  }

  async function list(options: { status?: ProposalStatus | 'all' } = {}): Promise<ReviewListResult> {
    const status = options.status ?? 'proposed'
    const proposals = (await storage.list(PROPOSALS_COLLECTION, { onProblem: ctx.onProblem }))
      .filter((p) => status === 'all' || p.status === status)
      .sort((a, b) => numberOf(a.id) - numberOf(b.id))
    const text = proposals.length
      ? proposals.map(renderProposal).join('\n\n')
      : status === 'proposed'
        ? 'No proposals wait for review.'
        : `No ${status === 'all' ? '' : `${status} `}proposals.`
    return { text, proposals }
  }

  /** A proposal still waiting, read inside the caller's section; throws NOT_FOUND or INVALID_INPUT naming what became of it. */
  async function waiting(id: string): Promise<Proposal> {
    const proposal = await storage.get(PROPOSALS_COLLECTION, id)
    if (!proposal)
      throw new FoundryError(
        'NOT_FOUND',
        `No proposal ${id}: list the waiting ones with foundry review (memory_review list)`,
      )
    if (proposal.status === 'accepted')
      throw new FoundryError('INVALID_INPUT', `${id} is already accepted as ${proposal.factId}; nothing to do`)
    if (proposal.status === 'rejected')
      throw new FoundryError('INVALID_INPUT', `${id} is already rejected; propose the fact again to review it anew`)
    return proposal
  }

  async function decide(id: string, change: (p: Proposal) => Proposal): Promise<Proposal> {
    return storage.exclusive(async () => {
      const decided = change(await waiting(id))
      await storage.put(PROPOSALS_COLLECTION, id, decided)
      return decided
    })
  }

  async function accept(id: string): Promise<AcceptResult> {
    const proposal = await waiting(id)
    // The fact first, then the proposal marked: a crash in between leaves it waiting, and accepting it
    // again finds the identical fact (`exists`), so nothing is written twice.
    const written = await memory.write(proposal.fact, proposal.author ? { author: proposal.author } : {})
    await decide(id, (p) => ({ ...p, status: 'accepted', decided: now(), factId: written.id }))
    return { ...written, proposal: id }
  }

  async function reject(id: string, reason?: string): Promise<DecisionResult> {
    const why = reason?.trim().replace(/\s+/g, ' ')
    if (why !== undefined && why.length > 500)
      throw new FoundryError('INVALID_INPUT', 'reason: at most 500 characters; shorten it')
    const proposal = await decide(id, (p) => ({
      ...p,
      status: 'rejected',
      decided: now(),
      ...(why && { reason: why }),
    }))
    return { text: `rejected: ${id} "${proposal.fact.title}" (nothing written to memory)`, proposal }
  }

  async function edit(id: string, raw: unknown): Promise<DecisionResult> {
    const changes = editInput.parse(raw, `edit of ${id}`)
    if (!Object.keys(changes).length)
      throw new FoundryError(
        'INVALID_INPUT',
        `edit of ${id}: no field to change; give title, body, type, scope, tags or confidence`,
      )
    const proposal = await decide(id, (p) => {
      return { ...p, fact: checkOne({ ...p.fact, ...changes }, `Invalid edit of ${id}`) }
    })
    return { text: `edited: ${id} (still waiting for review)\n\n${renderProposal(proposal)}`, proposal }
  }

  return { propose, list, accept, reject, edit }
}

/** The review queue as a kernel plugin (it writes accepted facts through the memory service). */
export const reviewPlugin = definePlugin({
  name: 'review',
  needs: [memoryPlugin],
  setup: createReview,
  trace: {
    propose: {
      kind: 'memory_review',
      data: (r) => ({
        action: 'propose',
        proposed: r.results.filter((x) => x.action === 'proposed').length,
        accepted: r.results.filter((x) => x.action === 'accepted').length,
      }),
    },
    accept: { kind: 'memory_review', data: (r) => ({ action: 'accept', proposal: r.proposal, id: r.id }) },
    reject: { kind: 'memory_review', data: (r) => ({ action: 'reject', proposal: r.proposal.id }) },
    edit: { kind: 'memory_review', data: (r) => ({ action: 'edit', proposal: r.proposal.id }) },
  },
})
