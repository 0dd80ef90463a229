/**
 * FTS5's `bm25()` (fts5_aux.c), as far as pruning needs it. For each phrase of a query, with N rows,
 * n rows matching the phrase, f = Σ over columns of weight × occurrences and D the row's tokens:
 *   idf = ln((N − n + 0.5) / (n + 0.5)), 1e-6 when that is ≤ 0
 *   score += idf × f × (k1 + 1) / (f + k1 × (1 − b + b × D / avgdl))
 * and FTS5 returns −score (lower is better).
 */
export const K1 = 1.2

export function idf(rows: number, hits: number): number {
  const value = Math.log((rows - hits + 0.5) / (hits + 0.5))
  return value > 0 ? value : 1e-6
}

/** The most a phrase of this IDF adds to any row's score (f growing without bound). */
export const maxScore = (phraseIdf: number) => phraseIdf * (K1 + 1)
