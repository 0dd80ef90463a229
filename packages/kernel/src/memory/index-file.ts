import type { Fact } from '../schema/fact.js'
import { estimateTokens } from '../tokens.js'
import { createFactSet, type FactSet } from './fact-set.js'
import { quoteFactText } from './facts.js'

export interface MemoryIndex {
  /** The markdown of `memory/INDEX.md`. */
  text: string
  listed: number
  total: number
  omitted: number
  tokens: number
  budget: number
}

const HEADER = '# Memory index\n\nOne line a fact: id · confidence · title. Fetch full text with memory_search.\n'
const footer = (omitted: number) =>
  `\n_${omitted} more fact${omitted === 1 ? '' : 's'} omitted over budget: find them with memory_search._\n`

/**
 * The index of the active facts, one line each, in `compareForIndex` order (type, confidence, newest
 * first), capped at `budget` tokens (the whole file counts). Listing stops at the first fact that
 * does not fit, so what is listed is always a prefix of the order: a deterministic cut.
 */
export function buildIndex(facts: readonly Fact[], budget: number, today: string): MemoryIndex {
  return indexOfSet(createFactSet(facts), budget, today)
}

/** `buildIndex` over the memory's own fact set (no copy). */
export function indexOfSet(set: FactSet, budget: number, today: string): MemoryIndex {
  const { exhausted: _exhausted, ...index } = renderIndex(set.ordered(), set.activeCount(today), budget, today)
  return index
}

/** What a line of the index shows: an active fact (those past `expires` are skipped). */
export type IndexLine = Pick<Fact, 'id' | 'type' | 'confidence' | 'title' | 'scope' | 'expires'>

/**
 * The index of `total` active facts from the first of them in index order (`ordered`, which may
 * hold expired ones, skipped). `exhausted`: every one given was listed, so a longer prefix of the
 * order could have listed more.
 */
export function renderIndex(
  ordered: Iterable<IndexLine>,
  total: number,
  budget: number,
  today: string,
): MemoryIndex & { exhausted: boolean } {
  const reserve = footer(total) // the longest footer this index could need
  let text = HEADER
  let listed = 0
  let group: string | undefined
  let exhausted = true
  for (const fact of ordered) {
    if (fact.expires !== undefined && fact.expires < today) continue
    const heading = fact.type !== group ? `\n## ${fact.type}\n` : ''
    const scope = fact.scope === 'project' ? '' : ` · ${fact.scope}`
    // A title cannot close a frame the index is shown in (`quoteFactText`); an ordinary one is unchanged.
    const line = `${heading}- ${fact.id} · ${fact.confidence} · ${quoteFactText(fact.title)}${scope}\n`
    const more = listed + 1 < total
    if (estimateTokens(text + line + (more ? reserve : '')) > budget) {
      exhausted = false
      break
    }
    text += line
    listed++
    group = fact.type
  }
  const omitted = total - listed
  if (listed === 0 && omitted === 0) text += '\nNo facts yet. Store one with memory_write.\n'
  if (omitted > 0) text += footer(omitted)
  return { text, listed, total, omitted, tokens: estimateTokens(text), budget, exhausted }
}

/** `13/16 facts listed, ~1980 tokens, 3 omitted` */
export function indexSummary(index: MemoryIndex): string {
  return `${index.listed}/${index.total} facts listed, ~${index.tokens} tokens, ${index.omitted} omitted`
}

/**
 * A short fingerprint of an INDEX.md text (FNV-1a, 32 bits, and the length): the catalog head
 * written after the index names it, so an index a power cut rolled back (both are relaxed) is not trusted.
 */
export function indexChecksum(text: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return `${(hash >>> 0).toString(36)}.${text.length}`
}
