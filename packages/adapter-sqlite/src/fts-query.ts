import { isUnspacedWord, processTerm, segmentWords, STOP_WORDS } from '@foundry/kernel/adapter'

/** Runs of letters and digits: the words FTS5's unicode61 tokenizer also sees. Everything else separates. */
const WORD = /[\p{L}\p{N}]+/gu
/**
 * A query's words: letters and digits with the marks inside them. unicode61 cuts a word at a mark
 * (Thai `ง่าย`, a tone mark inside, is two tokens), so the whole word, quoted, is a phrase of its
 * tokens: it matches that word only, not each piece anywhere.
 */
const QUERY_WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu

/**
 * The query's words, lowercased, without the kernel's stop words, each once, in order. Text written
 * without spaces (Chinese, Japanese, Thai…) is split into its words first (`segmentWords`), as the
 * retriever splits what it indexes.
 */
export function queryTerms(text: string): string[] {
  const words = (segmentWords(text).toLowerCase().match(QUERY_WORD) ?? []).filter((w) => !STOP_WORDS.has(w))
  return [...new Set(words)]
}

/**
 * The stemmed words of a text, as the index's vocabulary holds them (Porter, like FTS5's `porter`
 * tokenizer; text without spaces split into its words), without stop words: the typo candidates a
 * new document brings.
 */
export function vocabulary(text: string): Set<string> {
  const out = new Set<string>()
  for (const word of segmentWords(text).toLowerCase().match(WORD) ?? []) {
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
 * A word of a script written without spaces (`決済`: one or two characters carry a word) is matched
 * twice as written instead, so it counts as much as a long word does and `scoreScale` holds for it.
 * Users' text never reaches FTS5 unquoted, so its syntax (`AND`, `NEAR(`, `"`, `*`, `:`) is inert.
 */
export function matchExpression(terms: string[], prefixMinLength: number): string {
  return terms.flatMap((t) => termPhrases(t, prefixMinLength).map((p) => p.expr)).join(' OR ')
}

/** The phrases one query term is matched by, as `matchExpression` ORs them. */
export function termPhrases(term: string, prefixMinLength: number): Array<{ expr: string; prefix: boolean }> {
  const exact = { expr: quote(term), prefix: false }
  if (prefixMinLength === 0) return [exact]
  if (term.length >= prefixMinLength) return [exact, { expr: `${quote(term)}*`, prefix: true }]
  return isUnspacedWord(term) ? [exact, exact] : [exact]
}

/** The kernel's bounded Levenshtein distance (the MiniSearch retriever's fuzzy matching uses the same). */
export { boundedDistance } from '@foundry/kernel/adapter'
