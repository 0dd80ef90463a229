import type MiniSearch from 'minisearch'
import type { SearchOptions } from 'minisearch'
import type { RetrievalDoc } from '@foundry/kernel/adapter'

/**
 * The two places the retriever reads MiniSearch's internals (the version is pinned at 7.2.0). Each
 * checks the shape it relies on and, were it ever gone, answers `undefined` so the caller falls back
 * to the public API (`searchLookup`, `search()`): slower, still right. `minisearchRetriever({
 * internals: false })` takes the fallback always, and the conformance suite runs it too.
 */

interface Internals {
  _index?: { has?(term: string): boolean }
  _documentIds?: Map<number, unknown>
  _storedFields?: Map<number, Record<string, unknown> | undefined>
  executeQuery?(query: string, options: SearchOptions): Map<number, { score: number }>
}

/** Whether the index holds a term (MiniSearch has no public lookup). */
export function termLookup(index: MiniSearch<RetrievalDoc>): ((term: string) => boolean) | undefined {
  const terms = (index as unknown as Internals)._index
  return typeof terms?.has === 'function' ? (term) => terms.has!(term) : undefined
}

/**
 * `termLookup` through the public API: whether an exact search for the processed term matches a
 * document. Each answer costs a search of the term, so answers are kept: use one lookup per query.
 */
export function searchLookup(index: MiniSearch<RetrievalDoc>): (term: string) => boolean {
  const exact: SearchOptions = { prefix: false, fuzzy: false, tokenize: (term) => [term], processTerm: (term) => term }
  const answers = new Map<string, boolean>()
  return (term) => {
    let found = answers.get(term)
    if (found === undefined) answers.set(term, (found = index.search(term, exact).length > 0))
    return found
  }
}

export interface RawHit {
  id: string
  /** Plain BM25: before MiniSearch multiplies it by the number of query terms matched. */
  score: number
  stored: Record<string, unknown> | undefined
}

/**
 * Every match of `text` with its plain BM25 score, without the result objects, stored-field copies
 * and full sort `search()` builds for each match: half the cost of a search at 10k facts.
 */
export function rawMatches(
  index: MiniSearch<RetrievalDoc>,
  text: string,
  options: SearchOptions,
): Iterable<RawHit> | undefined {
  const inner = index as unknown as Internals
  const { _documentIds: ids, _storedFields: stored } = inner
  if (typeof inner.executeQuery !== 'function' || !(ids instanceof Map) || !(stored instanceof Map)) return undefined
  const raw = inner.executeQuery(text, options)
  return (function* () {
    for (const [shortId, { score }] of raw) {
      const id = ids.get(shortId)
      if (id !== undefined) yield { id: String(id), score, stored: stored.get(shortId) }
    }
  })()
}
