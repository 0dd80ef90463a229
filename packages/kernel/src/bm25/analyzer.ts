/** How documents are cut into terms and how unknown query terms are widened. */
export interface Analyzer {
  tokenize: (text: string) => string[]
  processTerm: (term: string) => string | null | undefined | false
  /** Prefix-match a query term the index lacks (a word still being typed). */
  prefix: (term: string) => boolean
  /** Maximum edit distance for a query term the index lacks, 0 for none. */
  fuzzy: (term: string) => number
}

export interface Scoring {
  k: number
  b: number
  /** Extra weight of a title match and of a tag match, over the whole text's. */
  title: number
  tags: number
}
