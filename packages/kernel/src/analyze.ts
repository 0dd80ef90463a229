import { stemmer } from 'stemmer'

/** Lucene's English stop words (the set BM25 baselines on BEIR use). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
)

/** Lowercase, drop stop words, Porter-stem: the term processing of the default retriever. */
export function processTerm(term: string): string | null {
  const lower = term.toLowerCase()
  if (STOP_WORDS.has(lower)) return null
  return stemmer(lower)
}
