import type { Analyzer, Scoring } from './analyzer.js'
import { postgresDistance, type Words } from './widen.js'

/**
 * The words whose postings a search may decode, given its query `terms` (tokenized and processed):
 * each term, and for one the index lacks (`known` false), every word it may widen to, by prefix and by
 * typo (a superset of the words `FlatIndex.expand` keeps, which also weighs how many documents hold
 * them). The typo distance is the one `expand` asks for, so its lookups are answered from the
 * dictionary's memory.
 */
export function wordsToRead(
  terms: readonly string[],
  analyzer: Pick<Analyzer, 'prefix' | 'fuzzy'>,
  scoring: Scoring,
  known: (term: string) => boolean,
  dictionary: Words,
): string[] {
  const { prefix, fuzzy } = analyzer
  const out: string[] = []
  for (const term of terms) {
    if (known(term)) {
      out.push(term)
      continue
    }
    if (prefix(term)) out.push(...dictionary.prefixed(term))
    const distance = scoring.ranking === 'postgres' ? postgresDistance(fuzzy(term)) : fuzzy(term)
    if (distance > 0) for (const [other] of dictionary.near(term, distance)) out.push(other)
  }
  return out
}

/** A query's terms, as `analyzer` cuts and processes them, kept for the last text asked. */
export function lastQueryTerms(
  analyzer: Pick<Analyzer, 'tokenize' | 'processTerm'>,
): (text: string) => readonly string[] {
  let last: { text: string; terms: string[] } | undefined
  return (text) => {
    if (last?.text !== text) {
      const terms: string[] = []
      for (const token of analyzer.tokenize(text)) {
        const term = token && analyzer.processTerm(token)
        if (term) terms.push(term)
      }
      last = { text, terms }
    }
    return last.terms
  }
}
