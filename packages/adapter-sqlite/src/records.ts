import {
  ArtifactSchema,
  ContractSchema,
  EventSchema,
  FactSchema,
  FoundryError,
  RunbookSchema,
  validator,
  type CollectionName,
  type Collections,
  type FoundryEvent,
  type Validator,
} from '@foundry/kernel'

/** Each record collection's schema: a row is read back only when it still satisfies it. */
const VALIDATORS: { [C in Exclude<CollectionName, 'meta'>]: Validator<Collections[C]> } = {
  facts: validator(FactSchema),
  runbooks: validator(RunbookSchema),
  contracts: validator(ContractSchema),
  artifacts: validator(ArtifactSchema),
}
const events = validator(EventSchema)

/** A row's text: records as JSON, meta as the text itself (snapshots are JSON already; quoting them again would cost). */
export function encode<C extends CollectionName>(collection: C, value: Collections[C]): string {
  if (collection !== 'meta') return JSON.stringify(value)
  if (typeof value !== 'string') throw new FoundryError('INVALID_INPUT', `meta values are text; got ${typeof value}`)
  return value
}

/** The record a row holds, or a one-line reason it cannot be read. */
export function decode<C extends CollectionName>(collection: C, text: string): { value: Collections[C] } | { problem: string } {
  if (collection === 'meta') return { value: text as Collections[C] }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { problem: `not JSON (${(error as Error).message})` }
  }
  const check = VALIDATORS[collection as Exclude<CollectionName, 'meta'>]
  if (check.check(value)) return { value: value as Collections[C] }
  return { problem: `not a valid ${collection.replace(/s$/, '')}: ${check.problems(value).join('; ')}` }
}

/** An event row, or undefined when it is unreadable (the log skips those). */
export function decodeEvent(text: string): FoundryEvent | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return events.check(value) ? value : undefined
  } catch {
    return undefined
  }
}
