// How a storage that keeps records as text rows (SQLite, PostgreSQL) writes and reads them: meta as
// its own text, everything else as JSON, read back only when a kernel record still satisfies its
// schema. Rows are text, not a JSON column type, so a record reads back byte for byte as it was
// written and an export is identical across storages.

import { FoundryError } from './errors.js'
import { EventSchema, type FoundryEvent } from './schema/event.js'
import { FactSchema } from './schema/fact.js'
import { ArtifactSchema, ContractSchema, RunbookSchema } from './schema/records.js'
import { validator, type Validator } from './schema/validate.js'
import type { CollectionName, Collections, KernelCollection, ListOptions, RecordOf } from './storage.js'

type RecordCollection = Exclude<KernelCollection, 'meta'>

/** Each kernel record collection's schema: a row is read back only when it still satisfies it. */
const VALIDATORS: { [C in RecordCollection]: Validator<Collections[C]> } = {
  facts: validator(FactSchema),
  runbooks: validator(RunbookSchema),
  contracts: validator(ContractSchema),
  artifacts: validator(ArtifactSchema),
}
const events = validator(EventSchema)

const isRecordCollection = (c: CollectionName): c is RecordCollection => Object.hasOwn(VALIDATORS, c)

/**
 * A row's text: meta as the text itself (snapshots are JSON already; quoting them again would
 * cost), everything else as JSON: the kernel's records and the values of open collections alike.
 */
export function encodeRecord<C extends CollectionName>(collection: C, value: RecordOf<C>): string {
  if (collection === 'meta') {
    if (typeof value !== 'string')
      throw new FoundryError(
        'INVALID_INPUT',
        `meta values are text; got ${typeof value}. Pass a string, or keep JSON in a "<consumer>.<name>" collection`,
      )
    return value
  }
  const text = JSON.stringify(value) as string | undefined
  if (text === undefined)
    throw new FoundryError(
      'INVALID_INPUT',
      `${collection} values are JSON; got ${typeof value}. Pass an object, array, string, number, boolean or null`,
    )
  return text
}

/**
 * The value a row holds, or a one-line reason it cannot be read. Kernel records must also satisfy
 * their schema; an open collection's value only has to be JSON (its consumer validates it).
 */
export function decodeRecord<C extends CollectionName>(
  collection: C,
  text: string,
): { value: RecordOf<C> } | { problem: string } {
  if (collection === 'meta') return { value: text as RecordOf<C> }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { problem: `not JSON (${(error as Error).message})` }
  }
  if (!isRecordCollection(collection)) return { value: value as RecordOf<C> }
  const check: Validator<unknown> = VALIDATORS[collection]
  if (check.check(value)) return { value: value as RecordOf<C> }
  return { problem: `not a valid ${collection.replace(/s$/, '')}: ${check.problems(value).join('; ')}` }
}

/** An event row, or undefined when it is unreadable (the log skips those). Any kind passes: EventSchema's kind is an open string. */
export function decodeEventText(text: string): FoundryEvent | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return events.check(value) ? value : undefined
  } catch {
    return undefined
  }
}

/** The record of one row: its value, or CORRUPT naming `location` and the fix. */
export function readRecordRow<C extends CollectionName>(collection: C, text: string, location: string): RecordOf<C> {
  const read = decodeRecord(collection, text)
  if ('problem' in read)
    throw new FoundryError('CORRUPT', `${location} cannot be read: ${read.problem}. Rewrite the record or delete it`)
  return read.value
}

/** The records of rows in key order; a row that cannot be read is left out and reported through `onProblem`. */
export function readRecordRows<C extends CollectionName>(
  collection: C,
  rows: ReadonlyArray<{ key: string; value: string }>,
  options: ListOptions,
  locate: (collection: C, key: string) => string,
): RecordOf<C>[] {
  const out: RecordOf<C>[] = []
  for (const row of rows) {
    const read = decodeRecord(collection, row.value)
    if ('value' in read) out.push(read.value)
    else options.onProblem?.({ collection, key: row.key, location: locate(collection, row.key), message: read.problem })
  }
  return out
}
