/** MiniSearch's weights for a widened term, so the retrievers rank a typo or a prefix alike. */
export const PREFIX_WEIGHT = 0.375
export const FUZZY_WEIGHT = 0.45

/** The indexed words a query word may widen to (`Dictionary`). */
export interface Words {
  prefixed(word: string): string[]
  near(word: string, distance: number): Array<[string, number]>
}

/** The edit distance the Postgres ranking widens a term by: the analyzer's, 3 at most. */
export const postgresDistance = (distance: number): number => Math.min(3, distance)

/**
 * A query term the index lacks, widened as the Postgres retriever widens one (ranking `postgres`):
 * the 32 indexed words it begins that most documents hold, each at `PREFIX_WEIGHT`; when there are
 * none, the 8 nearest within `distance` edits (3 at most), each at `FUZZY_WEIGHT` scaled by
 * length / (length + distance). `docs` is a word's live document count (0: no longer indexed).
 */
export function widenAsPostgres(
  term: string,
  words: Words,
  options: { prefix: boolean; distance: number },
  docs: (word: string) => number,
  add: (word: string, weight: number) => void,
): void {
  const byName = (x: [string, number], y: [string, number]) => (x[0] < y[0] ? -1 : 1)
  if (options.prefix) {
    const longer = words
      .prefixed(term)
      .map((w): [string, number] => [w, docs(w)])
      .filter(([, n]) => n > 0)
      .sort((x, y) => y[1] - x[1] || byName(x, y))
      .slice(0, 32)
    for (const [w] of longer) add(w, PREFIX_WEIGHT)
    if (longer.length) return
  }
  const max = postgresDistance(options.distance)
  if (max < 1) return
  const near = words
    .near(term, max)
    .filter(([w]) => docs(w) > 0)
    .sort((x, y) => x[1] - y[1] || byName(x, y))
    .slice(0, 8)
  for (const [w, d] of near) add(w, (FUZZY_WEIGHT * term.length) / (term.length + d))
}
