import { FoundryError } from '../errors.js'
import { BODY_MAX_WORDS, type Fact, type FactInput } from '../schema/fact.js'
import type { FactSet } from './fact-set.js'
import { dayOf, factId, factNumber, SAME_SUBJECT_THRESHOLD, similarity, subjectWords, wordCount } from './facts.js'

export type WritePlan =
  | { action: 'duplicate'; existing: Fact }
  | { action: 'created'; fact: Fact; superseded?: Fact }

const WHY = /^[\s*_>-]*why\s*:/im
const HOW = /^[\s*_>-]*how to apply\s*:/im

/**
 * Decide what a `memory_write` does, given every stored fact (superseded ones included, so ids are
 * never reused). Pure: the caller runs it inside the storage's exclusive section and applies it.
 */
export function planWrite(input: FactInput, stored: FactSet, now: Date): WritePlan {
  const today = dayOf(now)
  const title = input.title.trim().replace(/\s+/g, ' ')
  const body = input.body.trim()
  const type = input.type
  const scope = input.scope ?? 'project'
  checkBody(type, body)
  if (!title) throw new FoundryError('INVALID_INPUT', 'title must not be empty: state the fact itself in at most 80 characters')
  if (input.expires !== undefined) checkExpires(input.expires, today)

  const duplicate = stored.findDuplicate({ type, scope, title, body }, today)
  if (duplicate) return { action: 'duplicate', existing: duplicate }

  const words = subjectWords(title)
  let subject: { fact: Fact; score: number } | undefined
  for (const fact of stored.subjectCandidates(type, scope, words, today)) {
    const score = similarity(words, subjectWords(fact.title))
    if (score < SAME_SUBJECT_THRESHOLD) continue
    // The most similar wins; among equals, the newest (highest id).
    if (!subject || score > subject.score || (score === subject.score && factNumber(fact.id) > factNumber(subject.fact.id))) subject = { fact, score }
  }

  let superseded = subject?.fact
  if (input.supersedes !== undefined) {
    const named = stored.get(input.supersedes)
    if (!named) throw new FoundryError('INVALID_INPUT', `supersedes names ${input.supersedes}, which does not exist; omit it or name an existing fact`)
    if (named.status !== 'active') throw new FoundryError('INVALID_INPUT', `supersedes names ${input.supersedes}, which is already superseded by ${named.supersededBy ?? 'another fact'}; name the active fact instead`)
    superseded = named
  }

  const fact: Fact = {
    id: factId(stored.maxNumber + 1),
    title,
    body,
    type,
    scope,
    tags: [...new Set(input.tags ?? [])],
    confidence: input.confidence ?? 'medium',
    source: input.source ?? 'conversation',
    created: now.toISOString(),
    status: 'active',
  }
  if (input.expires !== undefined) fact.expires = input.expires
  if (superseded) fact.supersedes = superseded.id
  return superseded ? { action: 'created', fact, superseded: { ...superseded, status: 'superseded', supersededBy: fact.id } } : { action: 'created', fact }
}

function checkBody(type: FactInput['type'], body: string) {
  const words = wordCount(body)
  if (words === 0) throw new FoundryError('INVALID_INPUT', 'body must not be empty: explain the fact in at most 120 words')
  if (words > BODY_MAX_WORDS)
    throw new FoundryError('INVALID_INPUT', `body has ${words} words; the limit is ${BODY_MAX_WORDS}. Keep one atomic fact and move detail to a runbook or an ADR`)
  if (type === 'decision' || type === 'risk') {
    const missing = [WHY.test(body) ? '' : '"Why:"', HOW.test(body) ? '' : '"How to apply:"'].filter(Boolean)
    if (missing.length)
      throw new FoundryError('INVALID_INPUT', `body of a ${type} must include a "Why:" line and a "How to apply:" line (missing ${missing.join(' and ')})`)
  }
}

function checkExpires(expires: string, today: string) {
  const date = new Date(`${expires}T00:00:00Z`)
  if (Number.isNaN(date.getTime()) || dayOf(date) !== expires)
    throw new FoundryError('INVALID_INPUT', `expires ${expires} is not a calendar date; use YYYY-MM-DD`)
  if (expires < today) throw new FoundryError('INVALID_INPUT', `expires ${expires} is already past; give a later date or omit it`)
}
