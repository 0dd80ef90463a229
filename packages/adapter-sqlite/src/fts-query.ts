import { processTerm, STOP_WORDS } from '@foundry/kernel'

/** Runs of letters and digits: the words FTS5's unicode61 tokenizer also sees. Everything else separates. */
const WORD = /[\p{L}\p{N}]+/gu

/** The query's words, lowercased, without the kernel's stop words, each once, in order. */
export function queryTerms(text: string): string[] {
  const words = (text.toLowerCase().match(WORD) ?? []).filter((w) => !STOP_WORDS.has(w))
  return [...new Set(words)]
}

/**
 * The stemmed words of a text, as the index's vocabulary holds them (Porter, like FTS5's `porter`
 * tokenizer), without stop words: the typo candidates a new document brings.
 */
export function vocabulary(text: string): Set<string> {
  const out = new Set<string>()
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    const term = processTerm(word)
    if (term && term.length >= 2) out.add(term)
  }
  return out
}

/** A term as an FTS5 string: double quotes make every character literal (a quote inside is doubled). */
export const quote = (term: string) => `"${term.replaceAll('"', '""')}"`

/**
 * An FTS5 MATCH expression that ORs every term; a term of at least `prefixMinLength` characters
 * also matches as a prefix (`"kubernet"*`), so a document holding the exact word scores for both.
 * Users' text never reaches FTS5 unquoted, so its syntax (`AND`, `NEAR(`, `"`, `*`, `:`) is inert.
 */
export function matchExpression(terms: string[], prefixMinLength: number): string {
  return terms.map((t) => (prefixMinLength > 0 && t.length >= prefixMinLength ? `${quote(t)} OR ${quote(t)}*` : quote(t))).join(' OR ')
}

let prev = new Int32Array(64)
let curr = new Int32Array(64)

/**
 * Levenshtein distance between `a` and `b` when it is at most `max`, else `max + 1`. Only the
 * diagonal band of width 2·max + 1 is computed, in reused buffers, and a row whose cells all exceed
 * `max` ends it: scanning a vocabulary costs little per term.
 */
export function boundedDistance(a: string, b: string, max: number): number {
  const n = a.length
  const m = b.length
  const over = max + 1
  if (Math.abs(n - m) > max) return over
  if (m + 1 > prev.length) (prev = new Int32Array(m + 1)), (curr = new Int32Array(m + 1))
  for (let j = 0; j <= m; j++) prev[j] = j <= max ? j : over
  for (let i = 1; i <= n; i++) {
    const from = Math.max(1, i - max)
    const to = Math.min(m, i + max)
    curr[from - 1] = from === 1 && i <= max ? i : over
    let best = curr[from - 1]!
    const ca = a.charCodeAt(i - 1)
    for (let j = from; j <= to; j++) {
      const v = Math.min(prev[j - 1]! + (ca === b.charCodeAt(j - 1) ? 0 : 1), (j < i + max ? prev[j]! : over) + 1, curr[j - 1]! + 1, over)
      curr[j] = v
      if (v < best) best = v
    }
    if (to < m) curr[to + 1] = over
    if (best > max) return over
    const t = prev
    prev = curr
    curr = t
  }
  return Math.min(prev[m]!, over)
}
