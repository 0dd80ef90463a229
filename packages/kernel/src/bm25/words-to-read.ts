import type { Analyzer, Scoring } from './analyzer.js'

/** The indexed words a query word may widen to (`Dictionary`). */
interface Words {
  prefixed(word: string): string[]
  near(word: string, distance: number): Array<[string, number]>
}

/**
 * The words whose postings a search for `text` may decode: each query term, and for one the index
 * lacks (`known` false), every word it may widen to, by prefix and by typo (a superset of the words
 * `FlatIndex.expand` keeps, which also weighs how many documents hold them). The typo distance is the
 * one `expand` asks for, so its lookups are answered from the dictionary's memory.
 */
export function wordsToRead(
  text: string,
  analyzer: Analyzer,
  scoring: Scoring,
  known: (term: string) => boolean,
  dictionary: Words,
): string[] {
  const { tokenize, processTerm, prefix, fuzzy } = analyzer
  const out: string[] = []
  for (const token of tokenize(text)) {
    const term = token && processTerm(token)
    if (!term) continue
    if (known(term)) {
      out.push(term)
      continue
    }
    if (prefix(term)) out.push(...dictionary.prefixed(term))
    const distance = scoring.ranking === 'postgres' ? Math.min(3, fuzzy(term)) : fuzzy(term)
    if (distance > 0) for (const [other] of dictionary.near(term, distance)) out.push(other)
  }
  return out
}
