import { termsOf } from '../analyze.js'
import type { Config } from '../schema/config.js'
import { quoteFactText } from './facts.js'
import type { SearchHit } from './service.js'

/**
 * The relevance under which `memory_search` leaves a hit out: `minRelevance`, or `minRelevanceRatio`
 * of the top hit's relevance when that is higher. 0 when both are 0 (nothing left out).
 */
export function relevanceFloor(top: number, settings: Config['memoryRetrieval']): number {
  return Math.max(settings.minRelevance, settings.minRelevanceRatio * top)
}

/**
 * The hits worth their tokens, in their order: those at or above `floor`, and those under it that
 * hold every word of the query as the default retriever cuts and stems words (a fact holding them
 * all answers the query, however common its words: `invoices` in a memory of invoice rules). What
 * is left out matched only some words, or only through a typo or a prefix (`chart` → "charged").
 */
export function keptHits(hits: SearchHit[], query: string, floor: number): SearchHit[] {
  let words: Set<string> | undefined
  return hits.filter(({ relevance, fact }) => {
    if (relevance >= floor) return true
    words ??= termsOf(query)
    if (!words.size) return false
    const terms = termsOf(`${fact.title}\n${fact.tags.join(' ')}\n${fact.body}`)
    for (const word of words) if (!terms.has(word)) return false
    return true
  })
}

/** The one line at the end saying how many hits the floor left out. */
export function droppedLine(dropped: number, floor: number): string {
  return `(${dropped === 1 ? '1 weaker match' : `${dropped} weaker matches`} left out, below relevance ${Number(floor.toFixed(2))})`
}

/**
 * The hits printed past the whole ones (`memoryRetrieval.wholeFacts`): a line saying how to read
 * them, then one line each (id and title), best first. A title states the fact itself, so the line
 * often answers already; a search of the id returns the whole fact.
 */
export function briefLines(hits: SearchHit[]): string {
  return [
    `Weaker matches (search an id to read it whole):`,
    ...hits.map(({ fact }) => `- ${fact.id} ${quoteFactText(fact.title)}`),
  ].join('\n')
}
