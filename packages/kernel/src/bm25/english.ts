import { stem } from 'porter2'

/** PostgreSQL's English stop words (`tsearch_data/english.stop`, the list `to_tsvector('english')` drops). */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it
  its itself they them their theirs themselves what which who whom this that these those am is are was were be been
  being have has had having do does did doing a an the and but if or because as until while of at by for with about
  against between into through during before after above below to from up down in out on off over under again further
  then once here there when where why how all any both each few more most other some such no nor not only own same so
  than too very s t can will just don should now`.split(/\s+/),
)

/** Letters and digits, and the hyphens, dots and slashes PostgreSQL's parser reads inside a token; a sign before a digit. */
const CHUNK = /(?:[+-](?=\p{N}))?[\p{L}\p{M}\p{N}]+(?:[-./][\p{L}\p{M}\p{N}]+)*/gu
const LETTERS = /^[\p{L}\p{M}]+$/u
/** A host (`h2a.z-h2b`, `nav1.8-lineage`): ASCII labels, hyphens inside, joined by dots, the first beginning with a letter. */
const HOST = /^[A-Za-z][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)+$/
/** A number (`12`, `2.5`) or a host (`e.g`): one word, signed when it follows a hyphen and is a number. */
const NUMBER = /^\p{N}+(?:\.\p{N}+)*$/u

/**
 * The words of a text as PostgreSQL's default text search parser cuts them, close enough for
 * ranking: apostrophes and other punctuation separate; a path (`and/or`, `mg/kg`), a host
 * (`e.g`, `clinicaltrials.gov`, `h2a.z-h2b`) or a number with dots (`2.5`) is one word; a URL
 * gives itself, its host and its path (`http://` none); a hyphenated word gives
 * the whole and each part (`state-of-the-art`, `state`, `art`), a number after a hyphen is signed
 * (`il-6`: `il`, `-6`), and so is a number a sign begins (`+1`, `-3.1`); a hyphenated word
 * ends at a slash, the rest a path (`pd-1/pd-l1`: `pd`, `-1`, `/pd-l1`).
 */
export function englishTokens(text: string): string[] {
  const out: string[] = []
  let afterProtocol = false
  for (const match of text.matchAll(CHUNK)) {
    let chunk = match[0]
    const url = afterProtocol
    afterProtocol = text.startsWith('://', match.index + chunk.length)
    if (afterProtocol) continue // `http://`: not a word
    if (url && chunk.indexOf('/') > 0) {
      const at = chunk.indexOf('/')
      out.push(chunk, chunk.slice(0, at), chunk.slice(at)) // a URL: itself, its host, its path
      continue
    }
    if (chunk[0] === '+' || chunk[0] === '-') {
      if (NUMBER.test(chunk.slice(1))) {
        out.push(chunk)
        continue
      }
      chunk = chunk.slice(1)
    }
    const at = chunk.indexOf('/')
    if (at > 0 && chunk.lastIndexOf('-', at) > 0) {
      hyphenated(chunk.slice(0, at), out) // a hyphenated word ends at a slash, where a path begins
      out.push(chunk.slice(at))
    } else if (at >= 0 || HOST.test(chunk)) out.push(chunk)
    else if (chunk.includes('-')) hyphenated(chunk, out)
    else out.push(chunk)
  }
  return out
}

/** The words of `word-word-12`: each run of parts with letters whole (when longer than one) and part by part; numbers and hosts alone, a number after a hyphen signed. */
function hyphenated(chunk: string, out: string[]): void {
  let run: string[] = []
  const flush = () => {
    if (run.length > 1) out.push(run.join('-'))
    out.push(...run)
    run = []
  }
  chunk.split('-').forEach((part, i) => {
    if (!part.includes('.') && !NUMBER.test(part)) return void run.push(part)
    flush()
    out.push(i > 0 && NUMBER.test(part) ? `-${part}` : part)
  })
  flush()
}

/**
 * One word as `to_tsvector('english')` indexes it: lowercased; a stop word dropped; a word of
 * letters (a hyphenated one too) stemmed by Snowball's English stemmer (Porter2); numbers and
 * words mixing letters and digits kept as they are.
 */
export function englishTerm(word: string): string | null {
  const lower = word.toLowerCase()
  if (ENGLISH_STOP_WORDS.has(lower)) return null
  return lower.split('-').every((part) => LETTERS.test(part)) ? stem(lower) : lower
}
