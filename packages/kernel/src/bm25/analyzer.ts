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
  /**
   * `minisearch`: BM25 of the whole text plus BM25 of the title and of the tags, each field with its
   * own document frequencies and lengths in distinct words. `postgres`: one BM25 whose term frequency
   * counts a title occurrence `1 + title` times and a tag occurrence `1 + tags` times, lengths in
   * terms (stop words out), each query term once: the Postgres retriever's ranking.
   */
  ranking: 'minisearch' | 'postgres'
  k: number
  b: number
  /** Extra weight of a title match and of a tag match, over the whole text's. */
  title: number
  tags: number
}
