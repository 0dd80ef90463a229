import { FoundryError } from './errors.js'
import { FACT_ID_PATTERN } from './schema/fact.js'
import { CONTRACT_ID_PATTERN, SLUG_PATTERN } from './schema/records.js'
import type { CollectionName } from './storage.js'

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,79}$/
const PATTERNS: Record<Exclude<CollectionName, 'artifacts' | 'meta'>, RegExp> = {
  facts: new RegExp(FACT_ID_PATTERN),
  runbooks: new RegExp(SLUG_PATTERN),
  contracts: new RegExp(CONTRACT_ID_PATTERN),
}
const SHAPES: Record<CollectionName, string> = {
  facts: 'fact-NNNN',
  runbooks: 'a lowercase slug of [a-z0-9._-]',
  contracts: 'an id of [A-Za-z0-9._-]',
  artifacts: '<wave>/<agent>, each of [A-Za-z0-9._-] not starting with a dot',
  meta: 'slash-separated names of [A-Za-z0-9._-] not starting with a dot',
}

/** True when `key` is a well-formed key of the collection: no empty, `.`/`..` or absolute segment can pass. */
export function isValidKey(collection: CollectionName, key: string): boolean {
  if (collection === 'artifacts') {
    const parts = key.split('/')
    return parts.length === 2 && parts.every((p) => SEGMENT.test(p))
  }
  if (collection === 'meta') return key.length <= 400 && key.split('/').every((p) => SEGMENT.test(p))
  const pattern = PATTERNS[collection]
  return pattern !== undefined && pattern.test(key) && !key.startsWith('.')
}

/**
 * Every adapter calls this before touching a key, so no key can name a path outside its collection.
 * Throws INVALID_INPUT naming the collection and the expected shape.
 */
export function assertKey(collection: CollectionName, key: string): void {
  if (!(collection in SHAPES)) throw new FoundryError('INVALID_INPUT', `Unknown collection "${collection}"; use one of ${Object.keys(SHAPES).join(', ')}`)
  if (typeof key !== 'string' || !isValidKey(collection, key))
    throw new FoundryError('INVALID_INPUT', `Invalid ${collection} key ${JSON.stringify(key)}: expected ${SHAPES[collection]}`)
}

export const COLLECTIONS = Object.keys(SHAPES) as CollectionName[]
