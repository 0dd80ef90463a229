import { segmentWords } from '@foundry/kernel/adapter'

/**
 * Text as the retriever hands it to `to_tsvector`, for documents and queries alike: runs of a script
 * written without spaces (Chinese, Japanese, Thai…) split into their words (`segmentWords`, as the
 * other retrievers do), since PostgreSQL's parser would keep a whole run as one word; NUL, which a
 * PostgreSQL text cannot hold, made a space. Everything else stays as written: PostgreSQL's own
 * parser cuts it, the same way on both sides.
 */
export function analyzable(text: string): string {
  return segmentWords(text.includes('\0') ? text.replaceAll('\0', ' ') : text)
}

/**
 * A lexeme as a tsquery operand: single-quoted, its quotes doubled and backslashes escaped, so every
 * character is literal (`it's` → `'it''s'`). Lexemes come from PostgreSQL's own `to_tsvector`, never
 * from the user's text as written; they are still quoted, so nothing in them is syntax.
 */
export const quoteLexeme = (lexeme: string): string => `'${lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`

/** The OR of the lexemes, as tsquery text: matches a document holding any of them. */
export const anyOf = (lexemes: readonly string[]): string => lexemes.map(quoteLexeme).join(' | ')

/** A LIKE pattern matching the words that begin with `prefix` (`%`, `_` and `\` in it literal). */
export const likePrefix = (prefix: string): string => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** A LIKE pattern matching the words that hold `part` anywhere. */
const likeInside = (part: string): string => `%${part.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * LIKE patterns one of which every word within `max` edits of `word` matches: `word` cut into
 * `max + 1` pieces, each anywhere (an edit breaks one piece at most, so one survives whole). The
 * database filters the vocabulary with them, and only those words are measured exactly.
 */
export function typoPatterns(word: string, max: number): string[] {
  const chars = [...word]
  const pieces = Math.min(max + 1, chars.length)
  return Array.from({ length: pieces }, (_, i) =>
    likeInside(
      chars.slice(Math.floor((i * chars.length) / pieces), Math.floor(((i + 1) * chars.length) / pieces)).join(''),
    ),
  )
}
