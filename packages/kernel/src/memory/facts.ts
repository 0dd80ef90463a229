import { isoTime } from '../clock.js'
import { CONFIDENCES, FACT_TYPES, type Fact } from '../schema/fact.js'
import type { RetrievalDoc } from '../retrieval.js'

/** `YYYY-MM-DD` of a moment, in UTC: the granularity of `expires`. */
export function dayOf(date: Date): string {
  return isoTime(date).slice(0, 10)
}

/** Active: status `active` (neither superseded nor forgotten), and not past `expires` (a fact is still loaded on its expiry day). */
export function isActive(fact: Fact, today: string): boolean {
  return fact.status === 'active' && (fact.expires === undefined || fact.expires >= today)
}

export function factNumber(id: string): number {
  return Number(id.slice('fact-'.length))
}

/**
 * The older fact `fact` claims to supersede, when the claim counts: only a newer fact's does, so a
 * hand-edited file naming itself, or a newer fact, in `supersedes` repairs nothing (and can never
 * make a cycle). Every reader applies it: the fact set, `list`, the retriever's sync.
 */
export function claimOf(fact: Pick<Fact, 'id' | 'supersedes'>): string | undefined {
  return fact.supersedes !== undefined && factNumber(fact.supersedes) < factNumber(fact.id)
    ? fact.supersedes
    : undefined
}

export function factId(n: number): string {
  return `fact-${String(n).padStart(4, '0')}`
}

export function wordCount(text: string): number {
  const trimmed = text.trim()
  return trimmed ? trimmed.split(/\s+/).length : 0
}

const TYPE_RANK = new Map(FACT_TYPES.map((t, i) => [t, i]))
const CONFIDENCE_RANK = new Map(CONFIDENCES.map((c, i) => [c, i]))

/** The index order: type (as listed in FACT_TYPES), then confidence (high first), then newest first. */
export function compareForIndex(
  a: Pick<Fact, 'type' | 'confidence' | 'created' | 'id'>,
  b: Pick<Fact, 'type' | 'confidence' | 'created' | 'id'>,
): number {
  return (
    TYPE_RANK.get(a.type)! - TYPE_RANK.get(b.type)! ||
    CONFIDENCE_RANK.get(a.confidence)! - CONFIDENCE_RANK.get(b.confidence)! ||
    (a.created < b.created ? 1 : a.created > b.created ? -1 : 0) ||
    factNumber(b.id) - factNumber(a.id)
  )
}

/**
 * One search hit as the seed shows it. Facts are written by agents that can be wrong or
 * prompt-injected, so what could break the frame a fact is shown in is neutralised (`quoteFactText`);
 * an ordinary fact reads exactly as the seed shows it.
 */
export function renderFactBlock(fact: Fact): string {
  return [
    `### ${fact.id} · ${fact.type} · confidence ${fact.confidence}`,
    `**${quoteFactText(fact.title)}**`,
    quoteFactText(fact.body.trim()),
    `_source: ${quoteFactText(fact.source)} · scope: ${fact.scope}_`,
  ].join('\n')
}

/**
 * A fact's text made unable to close or fake the frame around it: `</` becomes `<\/` (no closing tag,
 * `</system>` or `</foundry-memory>`, survives), and a line opening with a code fence (```, ~~~) or a
 * markdown heading (`### fact-0099 …`, a forged block) gets a backslash first. Nothing else changes.
 */
export function quoteFactText(text: string): string {
  return text.replace(/<\//g, '<\\/').replace(/^([ \t]{0,3})(`{3,}|~{3,}|#{1,6}(?=[ \t]|$))/gm, '$1\\$2')
}

export function toRetrievalDoc(fact: Fact): RetrievalDoc {
  return { id: fact.id, title: fact.title, body: fact.body, tags: fact.tags, type: fact.type, scope: fact.scope }
}

/** Case, runs of whitespace and trailing punctuation do not make two texts different. */
export const normalizeText = (text: string) =>
  text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.!;:,]+$/, '')
    .trim()

/*
 * The same-statement rule, which decides when a new fact supersedes an active one of the same type
 * and scope. Titles are compared as tokens (`titleTokens`): lowercase words, with numbers,
 * versions, paths and names with digits kept whole, articles and punctuation dropped. The new fact
 * supersedes when its title is the same statement:
 * - the same title: the body is rewritten; or
 * - the same title with one value changed: the tokens differ in one place, at most
 *   `MAX_VALUE_TOKENS` on each side, and the change is
 *   - a quantity for a quantity (a number with a unit: `30 seconds`, `10 MB`, `500ms`, `99.9%`); or
 *   - in the predicate, after a verb the titles share past their first token: a number or a version
 *     after any value verb (`is`, `are`, `=`, `defaults to`, `uses`, `requires`, …); an identifier
 *     (`live-1`, `h37`, a single letter, `src/app.ts`) or a state (`enabled`, `deprecated`, …)
 *     after a copula (`is`, `are`, `=`, `defaults to`, `becomes`, …); or `not` (`never`, `no
 *     longer`) added or removed.
 * What comes before that verb is the subject, identifiers included: `Node 18` → `Node 22` or
 * `API v1` → `API v2` is another fact; with no such verb the whole title is the subject. A word
 * changed in the predicate (`uses Postgres` → `uses Redis`: both may hold), a phrase added or
 * dropped, or changes in two places also leave both facts active. Such a fact, when the titles
 * share at least `SIMILAR_OVERLAP` of their subject tokens (`titleOverlap`), is named in the
 * write's result, so the writer can supersede it explicitly. Candidates come from two indexes:
 * `statementKeys` finds every fact the rule could supersede; the rarest subject tokens find close
 * ones, at most `SIMILAR_SCAN` of them.
 */

/** The most tokens a changed value may span on each side. */
export const MAX_VALUE_TOKENS = 3
/** The subject-token overlap (`titleOverlap`) at which a fact not superseded is named as similar. */
export const SIMILAR_OVERLAP = 0.5
/** The most facts a write examines for similar ones (those holding its rarest tokens): the cost of a write stays flat. */
export const SIMILAR_SCAN = 256

const TOKEN = /[$€£]?[\p{L}\p{N}]+(?:[._\-/:@+'’][\p{L}\p{N}]+)*%?|:(?=\s|$)|=/gu
const FILLER = new Set([
  'a',
  'an',
  'the',
  'of',
  'to',
  'for',
  'in',
  'on',
  'at',
  'by',
  'with',
  'and',
  'or',
  'is',
  'are',
  'be',
  'was',
  'were',
  'we',
  'our',
  'it',
  'its',
  'as',
  'from',
  'into',
  '=',
])
const COPULAS = new Set([
  'is',
  'are',
  'was',
  'were',
  'be',
  '=',
  'equals',
  'equal',
  'becomes',
  'become',
  'remains',
  'remain',
  'stays',
  'stay',
  'defaults',
  'default',
  'means',
  'mean',
])
const VALUE_VERBS = new Set([
  ...COPULAS,
  'uses',
  'use',
  'runs',
  'run',
  'requires',
  'require',
  'needs',
  'need',
  'targets',
  'target',
  'pins',
  'pin',
])
const NEGATIONS = new Set(['not', 'no', 'never', 'longer'])
const STATES = new Set(
  'enabled disabled on off true false yes no allowed forbidden blocked permitted required optional mandatory supported unsupported deprecated removed active inactive retired public private internal external open closed locked unlocked frozen paused stable beta experimental sync async synchronous asynchronous manual automatic'.split(
    ' ',
  ),
)
const UNITS = new Set(
  (
    'ms millisecond milliseconds s sec secs second seconds min mins minute minutes h hr hrs hour hours d day days week weeks month months year years ' +
    'b byte bytes kb mb gb tb kib mib gib tib % percent rps qps rpm px em rem pt x times usd eur gbp dollars euros cents ' +
    'chars characters tokens words lines items rows records entries requests connections retries attempts replicas workers threads cores cpus nodes pods instances users approvals'
  ).split(' '),
)
const NUMBER = /^[$€£]?\d+(?:[.,]\d+)*%?$/
const NUMBER_WITH_UNIT = /^\d+(?:\.\d+)?(?:ms|s|sec|m|min|h|hr|d|w|k|kb|mb|gb|tb|kib|mib|gib|tib|x|px|rem|em|rps|qps)$/
const VERSION = /^v?\d+(?:\.\d+)*(?:[-+][a-z0-9.]+)?$/

/** A title as the rule reads it: lowercase tokens; `n't` is `not`; a lowercase `a`, or one opening the title, is an article, any other `A` a name. */
export function titleTokens(title: string): string[] {
  const raw = title.replace(/n['’]t\b/gi, ' not').match(TOKEN) ?? []
  const tokens: string[] = []
  for (const [i, token] of raw.entries()) {
    const lower = token === ':' ? '=' : token.toLowerCase()
    if (lower === 'the' || lower === 'an' || (lower === 'a' && (token === 'a' || i === 0))) continue
    tokens.push(lower)
  }
  return tokens.length ? tokens : [normalizeText(title)]
}

/** The tokens a title is indexed and compared by: its `titleTokens` without filler words (all of them if nothing else is left). */
export function subjectTokens(title: string | string[]): Set<string> {
  const tokens = typeof title === 'string' ? titleTokens(title) : title
  const content = tokens.filter((t) => !FILLER.has(t))
  return new Set(content.length ? content : tokens)
}

/** Jaccard overlap of two token sets: shared / either; 0 when both are empty. */
export function titleOverlap(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 0
  let shared = 0
  for (const t of a) if (b.has(t)) shared++
  return shared / (a.size + b.size - shared)
}

/**
 * How many of a title's `n` subject tokens, the rarest first, a search must probe to find every fact
 * it could name as similar: one with a Jaccard overlap ≥ 0.5 holds at least half of them.
 */
export function probeCount(n: number): number {
  return Math.min(n, Math.floor(n / 2) + 1)
}

/**
 * The keys a title is indexed by for the rule: any two titles it relates as the same statement
 * share one. The same title shares the whole (`=`); a changed quantity, the title with its runs of
 * numbers and units masked (`#`); a changed value after a verb, the title up to that verb (`>`).
 */
export function statementKeys(tokens: string[]): string[] {
  const keys = [`=${tokens.join(' ')}`]
  const masked = tokens
    .map((t) => (isNumeric(t) || UNITS.has(t) ? '#' : t))
    .filter((t, i, all) => t !== '#' || all[i - 1] !== '#')
  if (masked.includes('#')) keys.push(`#${masked.join(' ')}`)
  for (let i = 1; i < tokens.length; i++)
    if (VALUE_VERBS.has(tokens[i]!)) keys.push(`>${tokens.slice(0, i + 1).join(' ')}`)
  return keys
}

export type TitleRelation =
  /** The same title: the new fact rewrites the body. */
  | { kind: 'same-title'; reason: string }
  /** The same statement with one value changed. */
  | { kind: 'new-value'; reason: string }
  /** Another statement; `reason` says why, briefly. */
  | { kind: 'different'; reason: string }

/** Whether a fact titled `newer` states the same thing as one titled `older` (the rule above); titles as text or as `titleTokens`. */
export function relateTitles(older: string | string[], newer: string | string[]): TitleRelation {
  const a = typeof older === 'string' ? titleTokens(older) : older
  const b = typeof newer === 'string' ? titleTokens(newer) : newer
  const hunks = diffTokens(a, b)
  if (!hunks.length) return { kind: 'same-title', reason: 'same title' }
  const from = (h: Hunk) => a.slice(h.a0, h.a1)
  const to = (h: Hunk) => b.slice(h.b0, h.b1)
  const show = (h: Hunk) => {
    const [x, y] = [from(h).join(' '), to(h).join(' ')]
    return !x ? `adds "${y}"` : !y ? `drops "${x}"` : `"${x}" → "${y}"`
  }
  const shared = (i: number) => !hunks.some((h) => i >= h.b0 && i < h.b1)
  const hasSubject = b.some((t, i) => shared(i) && !FILLER.has(t) && !isNumeric(t) && !UNITS.has(t))
  const short = (h: Hunk) => h.a1 - h.a0 <= MAX_VALUE_TOKENS && h.b1 - h.b0 <= MAX_VALUE_TOKENS
  const quantityChange = (h: Hunk) =>
    hasSubject && short(h) && isQuantity(from(h), a[h.a1]) && isQuantity(to(h), b[h.b1])
  // The verb the predicate follows: a shared copula past the first token, else another value verb.
  const verbAt = (verbs: Set<string>) => b.findIndex((t, i) => i > 0 && verbs.has(t) && shared(i))
  const copula = verbAt(COPULAS)
  const verb = copula >= 0 ? copula : verbAt(VALUE_VERBS)

  for (const h of hunks)
    if ((verb < 0 || h.b0 <= verb) && !quantityChange(h))
      return { kind: 'different', reason: `different subject: ${show(h)}` }
  if (hunks.length > 1) return { kind: 'different', reason: `more than one change: ${hunks.map(show).join(', ')}` }
  const h = hunks[0]!
  if (quantityChange(h)) return { kind: 'new-value', reason: `new value: ${show(h)}` }
  const [x, y] = [from(h), to(h)]
  if (!x.length || !y.length) {
    const added = x.length ? x : y
    return added.every((t) => NEGATIONS.has(t))
      ? { kind: 'new-value', reason: `negation: ${show(h)}` }
      : { kind: 'different', reason: show(h) }
  }
  if (!short(h)) return { kind: 'different', reason: `${show(h)} is more than a value` }
  if (isNumericSpan(x) && isNumericSpan(y)) return { kind: 'new-value', reason: `new value: ${show(h)}` }
  const named =
    (isIdentifierSpan(x) && isIdentifierSpan(y)) ||
    (x.length === 1 && y.length === 1 && STATES.has(x[0]!) && STATES.has(y[0]!))
  if (!named) return { kind: 'different', reason: `${show(h)} is not a value` }
  return copula >= 0
    ? { kind: 'new-value', reason: `new value: ${show(h)}` }
    : { kind: 'different', reason: `${show(h)} after "${b[verb]}", not a copula: both may hold` }
}

/** One changed place between two token lists: `a[a0..a1)` became `b[b0..b1)`. */
interface Hunk {
  a0: number
  a1: number
  b0: number
  b1: number
}

/** The changed places between two token lists, along a longest common subsequence (deterministic). */
function diffTokens(a: string[], b: string[]): Hunk[] {
  const m = a.length
  const n = b.length
  // lcs[i * (n + 1) + j]: the LCS length of a[i..] and b[j..].
  const lcs = new Uint16Array((m + 1) * (n + 1))
  for (let i = m - 1; i >= 0; i--)
    for (let j = n - 1; j >= 0; j--)
      lcs[i * (n + 1) + j] =
        a[i] === b[j]
          ? lcs[(i + 1) * (n + 1) + j + 1]! + 1
          : Math.max(lcs[(i + 1) * (n + 1) + j]!, lcs[i * (n + 1) + j + 1]!)
  const hunks: Hunk[] = []
  let i = 0
  let j = 0
  let open: Hunk | undefined
  while (i < m || j < n) {
    if (i < m && j < n && a[i] === b[j]) {
      if (open) hunks.push(open), (open = undefined)
      i++, j++
      continue
    }
    open ??= { a0: i, a1: i, b0: j, b1: j }
    if (j >= n || (i < m && lcs[(i + 1) * (n + 1) + j]! >= lcs[i * (n + 1) + j + 1]!)) open.a1 = ++i
    else open.b1 = ++j
  }
  if (open) hunks.push(open)
  return hunks
}

const isNumeric = (t: string) => NUMBER.test(t) || NUMBER_WITH_UNIT.test(t) || VERSION.test(t)
const isIdentifier = (t: string) => /\d/.test(t) || /^\p{L}$/u.test(t) || /[/._@:]/.test(t)
/** Numbers, versions and units, with at least one number or version. */
const isNumericSpan = (span: string[]) => span.some(isNumeric) && span.every((t) => isNumeric(t) || UNITS.has(t))
/** Identifiers, numbers and units, with at least one identifier or number (a single letter is one, even `b`). */
const isIdentifierSpan = (span: string[]) =>
  span.some((t) => isIdentifier(t) || isNumeric(t)) &&
  span.every((t) => isIdentifier(t) || isNumeric(t) || UNITS.has(t))
/** A number with a unit: attached (`500ms`, `99.9%`, `$5`), inside the span, or the token after it. */
function isQuantity(span: string[], next: string | undefined): boolean {
  if (!span.length || !isNumericSpan(span)) return false
  return (
    span.some((t) => UNITS.has(t) || NUMBER_WITH_UNIT.test(t) || /^[$€£]|%$/.test(t)) ||
    (next !== undefined && UNITS.has(next))
  )
}
