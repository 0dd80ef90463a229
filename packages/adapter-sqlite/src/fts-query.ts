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

/** The kernel's bounded Levenshtein distance (the MiniSearch retriever's fuzzy matching uses the same). */
export { boundedDistance } from '@foundry/kernel'
