import { idf, maxScore } from './fts-bm25.js'

/**
 * Top-k ranking with MaxScore (Turtle & Flood) on FTS5. FTS5's SQL cannot stop early: `bm25()` runs
 * on every row that holds any query word, tens of thousands of rows for a common word at 100k facts.
 * So a query's words split into rare ones, whose rows are scored, and common ones, bounded by the
 * most they can add to a row: a row holding no rare word scores at most that bound, and once k rows
 * score above it, no such row can reach the top k. A row of the rare words gets its whole score in
 * two queries over those rows only: `R AND (C OR R)` scores the common phrases and the rare ones
 * twice, `R` the rare ones once; the difference is the row's score over all words. The hits and
 * scores are those of one `bm25()` query over all the words (up to floating-point rounding).
 */

export interface Phrase {
  /** The phrase as FTS5 syntax: `"cell"` or `"cell"*`. */
  expr: string
  /** Rows holding the word as written: a lower bound of the phrase's rows (a prefix matches more). */
  hits: number
}

export interface Word {
  phrases: Phrase[]
}

export interface Hit {
  id: string
  score: number
}

export interface RankSource {
  /** Rows in the index. */
  rows: number
  /** Every row matching `rare` (an FTS5 expression) that passes the filters, scored by `bm25()` over the phrases of `rare` and `common`. */
  score(rare: string, common: string): Hit[]
}

const expression = (words: Word[]) => words.map((w) => w.phrases.map((p) => p.expr).join(' OR ')).join(' OR ')

/** The most a word adds to a row: each phrase's IDF (from a lower bound of its rows, so never too low) × (k1 + 1). */
export const wordBound = (word: Word, rows: number) =>
  word.phrases.reduce((sum, p) => sum + maxScore(idf(rows, p.hits)), 0)

const better = (a: Hit, b: Hit) => a.score > b.score || (a.score === b.score && a.id < b.id)

/**
 * The top `limit` hits, or `undefined` when pruning would not save work (the rare words hold most
 * of the rows, or every word is needed): the caller runs one `bm25()` query over all the words.
 */
export function rankTopK(words: Word[], limit: number, source: RankSource): Hit[] | undefined {
  const { rows } = source
  const order = [...words].sort((a, b) => wordBound(b, rows) - wordBound(a, rows))
  const hits = (w: Word) => w.phrases[0]!.hits
  const total = order.reduce((sum, w) => sum + hits(w), 0)
  // Enough rare words to fill the top k.
  let split = 0
  let found = 0
  while (split < order.length && found < limit) found += hits(order[split++]!)
  for (let attempt = 0; split < order.length && attempt < MAX_ATTEMPTS; attempt++) {
    // Each attempt scores the rare words' rows twice: worth it only when they are few.
    if (found * 2 > total * MAX_SHARE) return undefined
    const common = order.slice(split)
    const bound = common.reduce((sum, w) => sum + wordBound(w, rows), 0)
    const top = best(source.score(expression(order.slice(0, split)), expression(common)), limit)
    const kth = top.length === limit ? top[limit - 1]!.score : 0
    if (kth > bound) return top
    // The k-th score found is a floor of the final one: leave to the bound only words that stay under it.
    let next = split + 1
    while (next < order.length && order.slice(next).reduce((sum, w) => sum + wordBound(w, rows), 0) >= kth) next++
    for (; split < next; split++) found += hits(order[split]!)
  }
  return undefined
}

/** Tries before one query over all the words. */
const MAX_ATTEMPTS = 2
/** Pruning runs while the rows it scores (twice) are at most this share of the rows all the words hold. */
const MAX_SHARE = 0.5

function best(hits: Hit[], limit: number): Hit[] {
  return hits.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0)).slice(0, limit)
}
