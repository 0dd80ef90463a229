import { stemmer } from 'stemmer'

/** Lucene's English stop words (the set BM25 baselines on BEIR use). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(
    ' ',
  ),
)

/** Lowercase, drop stop words, Porter-stem: the term processing of the default retriever. */
export function processTerm(term: string): string | null {
  const lower = term.toLowerCase()
  if (STOP_WORDS.has(lower)) return null
  return stemmer(lower)
}

/**
 * The scripts written without spaces between words, for which ICU (and so `Intl.Segmenter`) holds
 * a word dictionary: Chinese and Japanese (Han, Hiragana, Katakana), Thai, Lao, Khmer, Myanmar.
 * Script extensions, so the marks these scripts share (`ー`, `々`, `。`) stay inside a run.
 */
export const NO_SPACE_SCRIPTS = String.raw`\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}`

/**
 * Every character of NO_SPACE_SCRIPTS, and more: the seven below U+0E00 that script extensions give
 * to Han or Katakana (`·`, `ʼ`, combining marks), and every code unit from U+0E00 on (a test checks
 * the seven against the runtime's Unicode data). Built at once: it has no Unicode properties, which
 * cost a millisecond or more to build, so a process that only meets Latin text never builds them.
 */
export const MAY_BE_UNSPACED = /[\u00B7\u02BC\u02D7\u0E00-\uFFFF]|\u0303|\u0305|\u0323|\u0331/

let unspaced: { run: RegExp; any: RegExp } | undefined
const unspacedPatterns = () =>
  (unspaced ??= { run: new RegExp(`[${NO_SPACE_SCRIPTS}]+`, 'gu'), any: new RegExp(`[${NO_SPACE_SCRIPTS}]`, 'u') })

/** Whether text holds a character of a script written without spaces. */
const hasUnspaced = (text: string): boolean => MAY_BE_UNSPACED.test(text) && unspacedPatterns().any.test(text)

/** Whether a word is in a script written without spaces (`決済`, `ยืนยัน`): one `segmentWords` made. */
export const isUnspacedWord = hasUnspaced

let words: Intl.Segmenter | null | undefined
/** One word segmenter for the process, with a fixed locale: every process splits a text the same way. */
function segmenter(): Intl.Segmenter | null {
  if (words === undefined)
    words =
      typeof Intl === 'object' && typeof Intl.Segmenter === 'function'
        ? new Intl.Segmenter('en', { granularity: 'word' })
        : null
  return words
}

/**
 * `text` with each run of a script written without spaces replaced by its words, spaces around and
 * between them (`注文は決済後に確定する` → ` 注文 は 決済 後に 確定 する `), punctuation in the run
 * dropped; any other text is returned as it is. Both built-in retrievers apply it to what they index
 * and to queries, so `決済` finds that sentence. A runtime without `Intl.Segmenter` leaves text as it is.
 */
export function segmentWords(text: string): string {
  if (!hasUnspaced(text)) return text
  const segments = segmenter()
  if (!segments) return text
  return text.replace(unspacedPatterns().run, (run) => {
    let out = ' '
    for (const { segment, isWordLike } of segments.segment(run)) if (isWordLike) out += `${segment} `
    return out
  })
}

/** MiniSearch's default tokenizer: runs of white space and punctuation separate words. */
const SPACE_OR_PUNCTUATION = /[\n\r\p{Z}\p{P}]+/u

/** The words of a text as the default retriever cuts them: text without spaces split into its words, then split at spaces and punctuation. */
export const tokenize = (text: string): string[] => segmentWords(text).split(SPACE_OR_PUNCTUATION)

/** The distinct terms of a text as the default retriever indexes them (`tokenize`, then `processTerm`). */
export function termsOf(text: string): Set<string> {
  const out = new Set<string>()
  for (const word of tokenize(text)) {
    const term = word && processTerm(word)
    if (term) out.add(term)
  }
  return out
}
