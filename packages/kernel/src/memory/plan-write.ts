import { isoTime } from '../clock.js'
import { FoundryError } from '../errors.js'
import { BODY_MAX_WORDS, FACT_NUMBER_MAX, type Fact, type FactInput } from '../schema/fact.js'
import type { FactSet } from './fact-set.js'
import {
  dayOf,
  factId,
  factNumber,
  relateTitles,
  SIMILAR_OVERLAP,
  SIMILAR_SCAN,
  statementKeys,
  subjectTokens,
  titleOverlap,
  titleTokens,
  wordCount,
} from './facts.js'

/** What a write asks of the stored facts: a fact set answers it, and so does the write catalog (catalog.ts). */
export type WriteCandidates = Pick<
  FactSet,
  'maxNumber' | 'get' | 'findDuplicate' | 'statementCandidates' | 'subjectCandidates'
>

/** A close fact the write left active, and why (briefly). */
export interface SimilarFact {
  fact: Fact
  reason: string
}

export type WritePlan =
  | { action: 'duplicate'; existing: Fact }
  /** `similar`: the closest facts not superseded, best first, at most `SIMILAR_MAX`. */
  | { action: 'created'; fact: Fact; superseded?: Fact; similar: SimilarFact[] }

/** The most similar facts a write names. */
export const SIMILAR_MAX = 3

/**
 * A decision's or risk's `Why:` and `How to apply:` count where a sentence starts: at the start of
 * a line (after list, quote or emphasis marks) or after `.`, `!` or `?` and a space, so
 * `Use Flyway. Why: SQL. How to apply: add V<n>__name.sql.` on one line is accepted; `the reason
 * why: …` inside a sentence is not.
 */
const sentenceStart = (label: string) => new RegExp(`(?:^[\\s*_>-]*|[.!?]["')\\]]*\\s+[*_]*)${label}\\s*:`, 'im')
const WHY = sentenceStart('why')
const HOW = sentenceStart('how to apply')

/**
 * Decide what a `memory_write` does, given every stored fact (superseded ones included, so ids are
 * never reused). Pure: the caller runs it inside the storage's exclusive section and applies it.
 */
export function planWrite(input: FactInput, stored: WriteCandidates, now: Date): WritePlan {
  const today = dayOf(now)
  const { title, body } = checkFactInput(input, today)
  const type = input.type
  const scope = input.scope ?? 'project'

  // The fact `supersedes` names is being replaced, so the same text with other tags or confidence is an edit, not a duplicate.
  const duplicate = stored.findDuplicate({ type, scope, title, body }, today)
  if (duplicate && duplicate.id !== input.supersedes) return { action: 'duplicate', existing: duplicate }

  // The same-statement rule (see facts.ts), unless the writer names the fact or refuses it.
  const automatic = input.supersede !== false && input.supersedes === undefined
  const words = titleTokens(title)
  const tokens = subjectTokens(words)
  const matches: Array<{ fact: Fact; sameTitle: boolean }> = []
  const near: Array<SimilarFact & { rank: number }> = []
  const seen = new Set<string>()
  const examine = (fact: Fact, ruleCandidate: boolean) => {
    if (fact.id === input.supersedes || seen.has(fact.id)) return
    seen.add(fact.id)
    const theirs = titleTokens(fact.title)
    const overlap = titleOverlap(tokens, subjectTokens(theirs))
    if (!ruleCandidate && overlap < SIMILAR_OVERLAP) return
    const relation = relateTitles(theirs, words)
    if (relation.kind === 'different') {
      if (overlap >= SIMILAR_OVERLAP) near.push({ fact, reason: relation.reason, rank: overlap })
    } else if (automatic) matches.push({ fact, sameTitle: relation.kind === 'same-title' })
    else
      near.push({
        fact,
        reason: input.supersedes === undefined ? 'supersede is false' : `supersedes names ${input.supersedes}`,
        rank: 2,
      })
  }
  // Every fact the rule could supersede, then close ones (a bounded number) it may name as similar.
  for (const fact of stored.statementCandidates(type, scope, statementKeys(words), today)) examine(fact, true)
  for (const fact of stored.subjectCandidates(type, scope, tokens, today, SIMILAR_SCAN)) examine(fact, false)
  // One fact is superseded: the same title (a body rewrite) before a changed value, then the newest.
  matches.sort((x, y) => Number(y.sameTitle) - Number(x.sameTitle) || factNumber(y.fact.id) - factNumber(x.fact.id))
  let superseded = matches[0]?.fact
  for (const { fact } of matches.slice(1))
    near.push({ fact, reason: `the same statement, but ${superseded!.id} is the one superseded`, rank: 2 })
  const similar = near
    .sort((x, y) => y.rank - x.rank || factNumber(y.fact.id) - factNumber(x.fact.id))
    .slice(0, SIMILAR_MAX)
    .map(({ fact, reason }) => ({ fact, reason }))

  if (input.supersedes !== undefined) {
    const named = stored.get(input.supersedes)
    if (!named)
      throw new FoundryError(
        'INVALID_INPUT',
        `supersedes names ${input.supersedes}, which does not exist; omit it or name an existing fact`,
      )
    if (named.status === 'forgotten')
      throw new FoundryError(
        'INVALID_INPUT',
        `supersedes names ${input.supersedes}, which is forgotten; omit supersedes to write the fact anew`,
      )
    if (named.status !== 'active')
      throw new FoundryError(
        'INVALID_INPUT',
        `supersedes names ${input.supersedes}, which is already superseded by ${named.supersededBy ?? 'another fact'}; name the active fact instead`,
      )
    superseded = named
  }

  if (stored.maxNumber >= FACT_NUMBER_MAX)
    throw new FoundryError(
      'CONFLICT',
      `No fact id is left after ${factId(stored.maxNumber)}, the last one Foundry numbers exactly; renumber hand-made files with huge ids, or start a new memory`,
    )
  const fact: Fact = {
    id: factId(stored.maxNumber + 1),
    title,
    body,
    type,
    scope,
    tags: [...new Set(input.tags ?? [])],
    confidence: input.confidence ?? 'medium',
    source: input.source ?? 'conversation',
    created: isoTime(now),
    status: 'active',
  }
  if (input.expires !== undefined) fact.expires = input.expires
  if (superseded) fact.supersedes = superseded.id
  return superseded
    ? { action: 'created', fact, superseded: { ...superseded, status: 'superseded', supersededBy: fact.id }, similar }
    : { action: 'created', fact, similar }
}

/**
 * The checks of a fact input that need no stored fact (its body's length and labels, a title left
 * after trimming, an expiry date to come), as `planWrite` runs them first: a batch runs them on
 * every fact before it writes any. Throws INVALID_INPUT naming the field; returns the trimmed texts.
 */
export function checkFactInput(input: FactInput, today: string): { title: string; body: string } {
  const title = input.title.trim().replace(/\s+/g, ' ')
  const body = input.body.trim()
  checkBody(input.type, body)
  if (!title)
    throw new FoundryError('INVALID_INPUT', 'title must not be empty: state the fact itself in at most 80 characters')
  if (input.expires !== undefined) checkExpires(input.expires, today)
  return { title, body }
}

function checkBody(type: FactInput['type'], body: string) {
  const words = wordCount(body)
  if (words === 0)
    throw new FoundryError('INVALID_INPUT', 'body must not be empty: explain the fact in at most 120 words')
  if (words > BODY_MAX_WORDS)
    throw new FoundryError(
      'INVALID_INPUT',
      `body has ${words} words; the limit is ${BODY_MAX_WORDS}. Keep one atomic fact and move detail to a runbook or an ADR`,
    )
  if (type === 'decision' || type === 'risk') {
    const missing = [WHY.test(body) ? '' : '"Why:"', HOW.test(body) ? '' : '"How to apply:"'].filter(Boolean)
    if (missing.length)
      throw new FoundryError(
        'INVALID_INPUT',
        `body of a ${type} must include "Why:" and "How to apply:", each at the start of a line or of a sentence (missing ${missing.join(' and ')})`,
      )
  }
}

function checkExpires(expires: string, today: string) {
  const date = new Date(`${expires}T00:00:00Z`)
  if (Number.isNaN(date.getTime()) || dayOf(date) !== expires)
    throw new FoundryError('INVALID_INPUT', `expires ${expires} is not a calendar date; use YYYY-MM-DD`)
  if (expires < today)
    throw new FoundryError('INVALID_INPUT', `expires ${expires} is already past; give a later date or omit it`)
}
