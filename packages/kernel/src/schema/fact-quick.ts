import {
  CONFIDENCES,
  DATE_PATTERN,
  FACT_ID_PATTERN,
  FACT_STATUSES,
  FACT_TYPES,
  type Fact,
  SCOPE_PATTERN,
  SOURCE_PATTERN,
  TITLE_MAX_CHARS,
} from './fact.js'

/*
 * A stored fact checked by plain code before FactSchema's own check: a short-lived process (a hook,
 * `foundry list`) reads tens of facts, and TypeBox's interpreter walking the schema for each, or
 * compiling it, is some 5% of its CPU. The quick check answers true only for a value the schema
 * accepts (every bound it tests is as strict as the schema's or stricter); false means "not sure",
 * and the schema decides, with its own messages.
 */

// The schema's patterns, as TypeBox builds them (with the `u` flag).
const FACT_ID = new RegExp(FACT_ID_PATTERN, 'u')
const SCOPE = new RegExp(SCOPE_PATTERN, 'u')
const SOURCE = new RegExp(SOURCE_PATTERN, 'u')
const DATE = new RegExp(DATE_PATTERN, 'u')
const TAG = /^[^\s,]+$/u

const TYPES: ReadonlySet<unknown> = new Set(FACT_TYPES)
const CONFIDENCE: ReadonlySet<unknown> = new Set(CONFIDENCES)
const STATUSES: ReadonlySet<unknown> = new Set(FACT_STATUSES)

/** Every key FactSchema lists (it allows no other), written out so the check never builds the schema; a test holds them equal. */
export const FACT_KEYS: ReadonlySet<string> = new Set([
  'id',
  'title',
  'body',
  'type',
  'scope',
  'tags',
  'confidence',
  'source',
  'author',
  'created',
  'expires',
  'supersedes',
  'supersededBy',
  'status',
  'forgotten',
  'forgottenReason',
])

/**
 * A string of at least `min` and at most `max` code points, judged from its UTF-16 length alone: at
 * most `max` units is at most `max` code points, at least `2·min` units at least `min` (a code point
 * is one or two units). A string between those is left to the schema.
 */
export function sized(value: unknown, min: number, max = Number.POSITIVE_INFINITY): value is string {
  return (
    typeof value === 'string' && value.length <= max && (value.length >= 2 * min || (min <= 1 && value.length >= min))
  )
}

const matches = (value: unknown, pattern: RegExp): boolean => typeof value === 'string' && pattern.test(value)
const isTags = (tags: unknown): boolean =>
  Array.isArray(tags) && tags.length <= 20 && tags.every((tag) => sized(tag, 1, 40) && TAG.test(tag))

/** True only when FactSchema accepts `value` (see above); false: check it with the schema. */
export function isPlainFact(value: unknown): value is Fact {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const fact = value as Record<string, unknown>
  for (const key of Object.keys(fact)) if (!FACT_KEYS.has(key) || fact[key] === undefined) return false
  return (
    matches(fact.id, FACT_ID) &&
    sized(fact.title, 1, TITLE_MAX_CHARS) &&
    sized(fact.body, 1, 4000) &&
    TYPES.has(fact.type) &&
    matches(fact.scope, SCOPE) &&
    isTags(fact.tags) &&
    CONFIDENCE.has(fact.confidence) &&
    matches(fact.source, SOURCE) &&
    (!('author' in fact) || sized(fact.author, 1, 64)) &&
    sized(fact.created, 10) &&
    (!('expires' in fact) || matches(fact.expires, DATE)) &&
    (!('supersedes' in fact) || matches(fact.supersedes, FACT_ID)) &&
    (!('supersededBy' in fact) || matches(fact.supersededBy, FACT_ID)) &&
    STATUSES.has(fact.status) &&
    (!('forgotten' in fact) || sized(fact.forgotten, 10)) &&
    (!('forgottenReason' in fact) || sized(fact.forgottenReason, 1, 500))
  )
}

/** Every key FactInputSchema lists (it allows no other); a test holds them equal. */
export const FACT_INPUT_KEYS: ReadonlySet<string> = new Set(
  'title body type scope tags confidence source expires supersedes supersede'.split(' '),
)

/**
 * True only when FactInputSchema accepts `value`, as `isPlainFact` for a stored fact: a new process's
 * first `memory_write` checks its input without building the schemas. False: check it with the schema.
 */
export function isPlainFactInput(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const input = value as Record<string, unknown>
  for (const key of Object.keys(input)) if (!FACT_INPUT_KEYS.has(key) || input[key] === undefined) return false
  return (
    sized(input.title, 1, TITLE_MAX_CHARS) &&
    sized(input.body, 1, 4000) &&
    TYPES.has(input.type) &&
    (!('scope' in input) || (sized(input.scope, 1, 200) && SCOPE.test(input.scope))) &&
    (!('tags' in input) || isTags(input.tags)) &&
    (!('confidence' in input) || CONFIDENCE.has(input.confidence)) &&
    (!('source' in input) || (sized(input.source, 1, 500) && SOURCE.test(input.source))) &&
    (!('expires' in input) || matches(input.expires, DATE)) &&
    (!('supersedes' in input) || matches(input.supersedes, FACT_ID)) &&
    (!('supersede' in input) || typeof input.supersede === 'boolean')
  )
}
