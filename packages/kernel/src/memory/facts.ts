import { CONFIDENCES, FACT_TYPES, type Fact } from '../schema/fact.js'
import type { RetrievalDoc } from '../retrieval.js'

/** `YYYY-MM-DD` of a moment, in UTC: the granularity of `expires`. */
export function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10)
}

/** Active: not superseded, and not past `expires` (a fact is still loaded on its expiry day). */
export function isActive(fact: Fact, today: string): boolean {
  return fact.status === 'active' && (fact.expires === undefined || fact.expires >= today)
}

export function factNumber(id: string): number {
  return Number(id.slice('fact-'.length))
}

export function factId(n: number): string {
  return `fact-${String(n).padStart(4, '0')}`
}

export function wordCount(text: string): number {
  const trimmed = text.trim()
  return trimmed ? trimmed.split(/\s+/).length : 0
}

const TYPE_RANK = new Map(FACT_TYPES.map((t, i) => [t, i]))
const CONFIDENCE_RANK = new Map(CONFIDENCES.map((c, i) => [c, i]))

/** The index order: type (as listed in FACT_TYPES), then confidence (high first), then newest first. */
export function compareForIndex(a: Fact, b: Fact): number {
  return (
    TYPE_RANK.get(a.type)! - TYPE_RANK.get(b.type)! ||
    CONFIDENCE_RANK.get(a.confidence)! - CONFIDENCE_RANK.get(b.confidence)! ||
    (a.created < b.created ? 1 : a.created > b.created ? -1 : 0) ||
    factNumber(b.id) - factNumber(a.id)
  )
}

/** One search hit as the seed shows it. */
export function renderFactBlock(fact: Fact): string {
  return [
    `### ${fact.id} · ${fact.type} · confidence ${fact.confidence}`,
    `**${fact.title}**`,
    fact.body.trim(),
    `_source: ${fact.source} · scope: ${fact.scope}_`,
  ].join('\n')
}

export function toRetrievalDoc(fact: Fact): RetrievalDoc {
  return { id: fact.id, title: fact.title, body: fact.body, tags: fact.tags, type: fact.type, scope: fact.scope }
}

/** Case, runs of whitespace and trailing punctuation do not make two texts different. */
export const normalizeText = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').replace(/[\s.!;:,]+$/, '').trim()

const SUBJECT_STOP_WORDS = new Set(['a', 'an', 'the', 'of', 'to', 'for', 'in', 'on', 'at', 'by', 'with', 'and', 'or', 'is', 'are', 'be', 'we', 'our'])

/** The words a title's subject is made of: lowercase letters only (numbers are values, not subject), minus filler words. */
export function subjectWords(title: string): Set<string> {
  return new Set((title.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => !SUBJECT_STOP_WORDS.has(w)))
}

/** Jaccard similarity of two word sets; 0 when both are empty. */
export function similarity(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 0
  let shared = 0
  for (const w of a) if (b.has(w)) shared++
  return shared / (a.size + b.size - shared)
}

/**
 * The same-subject rule for supersedes chains: same type, same scope, and title subject words
 * (see `subjectWords`) with a Jaccard similarity of at least this threshold. "API timeout is 30
 * seconds" and "API timeout is 60 seconds" share every subject word, so the newer supersedes the older.
 */
export const SAME_SUBJECT_THRESHOLD = 0.75
