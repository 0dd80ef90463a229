import { FoundryError } from './errors.js'
import { FACT_ID_PATTERN } from './schema/fact.js'
import { CONTRACT_ID_PATTERN, SLUG_PATTERN } from './schema/records.js'
import type { CollectionName, KernelCollection } from './storage.js'

// `%` for names encoded by `sanitizeName` (`a%20b`), up to 240 characters; never `/`, never a leading dot.
const SEGMENT = /^[A-Za-z0-9_%-][A-Za-z0-9._%-]{0,239}$/
const OPEN_COLLECTION = /^[a-z][a-z0-9-]{0,39}\.[a-z][a-z0-9-]{0,39}$/
const PATTERNS: Record<Exclude<KernelCollection, 'artifacts' | 'meta'>, RegExp> = {
  facts: new RegExp(FACT_ID_PATTERN),
  runbooks: new RegExp(SLUG_PATTERN),
  contracts: new RegExp(CONTRACT_ID_PATTERN),
}
const NAMES = 'slash-separated names of [A-Za-z0-9._%-] not starting with a dot'
const SHAPES: Record<KernelCollection, string> = {
  facts: 'fact-NNNN',
  runbooks: 'a lowercase slug of [a-z0-9._-]',
  contracts: 'an id of [A-Za-z0-9._-]',
  artifacts: '<wave>/<agent>, each of [A-Za-z0-9._%-] not starting with a dot',
  meta: NAMES,
}

/** The kernel's own collections. Consumers add theirs as `<consumer>.<name>` (see `Collections`). */
export const COLLECTIONS = Object.keys(SHAPES) as KernelCollection[]

/** Names Windows keeps for devices, with or without an extension (`nul.txt` too): a file so named cannot be made there. */
const DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/i
const DEVICE_NAMES =
  'CON, PRN, AUX, NUL, COM0-9 and LPT0-9 (with any extension) are device names on Windows; choose another name'
const isSegment = (part: string) => SEGMENT.test(part) && !DEVICE.test(part)

const isKernelCollection = (name: string): name is KernelCollection => Object.hasOwn(SHAPES, name)
const isNames = (key: string) => key.length <= 800 && key.split('/').every(isSegment)

/** A kernel collection, or an open one named `<consumer>.<name>` with each part of `[a-z0-9-]` starting with a letter. */
export function isCollectionName(name: unknown): name is CollectionName {
  return (
    typeof name === 'string' &&
    (isKernelCollection(name) || (OPEN_COLLECTION.test(name) && name.split('.').every((part) => !DEVICE.test(part))))
  )
}

/** Throws INVALID_INPUT unless `name` is a collection name (see `isCollectionName`). */
export function assertCollection(name: unknown): asserts name is CollectionName {
  if (!isCollectionName(name))
    throw new FoundryError(
      'INVALID_INPUT',
      `Unknown collection ${JSON.stringify(name)}: use one of ${COLLECTIONS.join(', ')}, or name your own "<consumer>.<name>" (lowercase letters, digits, dashes)`,
    )
}

/**
 * True when `key` is a well-formed key of the collection: no empty, `.`/`..` or absolute segment can
 * pass, nor a Windows device name (`CON`, `nul.txt`, `COM1`…) as a segment, so every key is a file
 * on every platform.
 */
export function isValidKey(collection: CollectionName, key: string): boolean {
  if (typeof key !== 'string') return false
  if (collection === 'artifacts') {
    const parts = key.split('/')
    return parts.length === 2 && parts.every(isSegment)
  }
  if (collection === 'meta' || !isKernelCollection(collection)) return isNames(key)
  const pattern = PATTERNS[collection as keyof typeof PATTERNS]
  return pattern?.test(key) && !key.startsWith('.') && !DEVICE.test(key)
}

/**
 * Every adapter calls this before touching a key, so no key can name a path outside its collection.
 * Throws INVALID_INPUT naming the collection and the expected shape.
 */
export function assertKey(collection: CollectionName, key: string): void {
  assertCollection(collection)
  if (typeof key === 'string' && key.split('/').some((part) => DEVICE.test(part)))
    throw new FoundryError('INVALID_INPUT', `Invalid ${collection} key ${JSON.stringify(key)}: ${DEVICE_NAMES}`)
  if (!isValidKey(collection, key))
    throw new FoundryError(
      'INVALID_INPUT',
      `Invalid ${collection} key ${JSON.stringify(key)}: expected ${isKernelCollection(collection) ? SHAPES[collection] : NAMES}`,
    )
}

/** Every adapter calls this before touching a log: log names are shaped like meta keys. Throws INVALID_INPUT. */
export function assertLogName(log: string): void {
  if (typeof log !== 'string' || !isNames(log))
    throw new FoundryError('INVALID_INPUT', `Invalid log name ${JSON.stringify(log)}: expected ${NAMES}`)
}
