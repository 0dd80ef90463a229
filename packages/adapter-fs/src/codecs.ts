import {
  ArtifactSchema,
  ContractSchema,
  FactSchema,
  FoundryError,
  isFoundryError,
  RunbookSchema,
  serializeArtifact,
  validator,
  type Collections,
  type JsonValue,
  type Validator,
} from '@foundry/kernel'
import type { CollectionName, KernelCollection, RecordOf } from '@foundry/kernel/adapter'
import { FormatError } from './format-error.js'
import {
  checkCreated,
  factToMarkdown,
  markdownToFact,
  markdownToRunbook,
  runbookToMarkdown,
  type ReadContext,
} from './front-matter.js'
import { isOpen } from './layout.js'

/** How one collection's records become file text and back. */
export interface Codec<T> {
  /** The file text of a record. Throws INVALID_INPUT when the record would not read back as it is. */
  encode(value: T, key: string): string
  /** The record a file holds. Throws FormatError saying what is wrong. */
  decode(text: string, at: ReadContext): T
}

export type { ReadContext }

const checks = {
  fact: validator(FactSchema),
  runbook: validator(RunbookSchema),
  contract: validator(ContractSchema),
  artifact: validator(ArtifactSchema),
}

const facts: Codec<Collections['facts']> = {
  encode(fact, key) {
    refuse(
      'fact',
      key,
      checks.fact,
      fact,
      fact?.id === key ? undefined : `its id ${String(fact?.id)} differs from the key`,
    )
    const created =
      checkCreated(fact.created) ??
      (fact.forgotten === undefined ? undefined : checkCreated(fact.forgotten, 'forgotten'))
    if (created) throw new FoundryError('INVALID_INPUT', `Cannot store fact ${key}: ${created}`)
    return factToMarkdown(fact)
  },
  decode: markdownToFact,
}

const runbooks: Codec<Collections['runbooks']> = {
  encode(runbook, key) {
    refuse(
      'runbook',
      key,
      checks.runbook,
      runbook,
      runbook?.slug === key ? undefined : `its slug ${String(runbook?.slug)} differs from the key`,
    )
    return runbookToMarkdown(runbook)
  },
  decode: markdownToRunbook,
}

/** `contracts/<id>.json` holds the JSON Schema itself, pretty-printed; the id is the file name. */
const contracts: Codec<Collections['contracts']> = {
  encode(contract, key) {
    refuse(
      'contract',
      key,
      checks.contract,
      contract,
      contract?.id === key ? undefined : `its id ${String(contract?.id)} differs from the key`,
    )
    return `${JSON.stringify(contract.schema, null, 2)}\n`
  },
  decode(text, at) {
    return { id: at.key, schema: jsonObject(text, 'a contract file must hold one JSON Schema object') }
  },
}

/** `blackboard/<wave>/<agent>.json` holds exactly `serializeArtifact(data)`; wave and agent are the path. */
const artifacts: Codec<Collections['artifacts']> = {
  encode(artifact, key) {
    const named =
      `${artifact?.wave}/${artifact?.agent}` === key
        ? undefined
        : `its wave/agent ${String(artifact?.wave)}/${String(artifact?.agent)} differ from the key`
    refuse('artifact', key, checks.artifact, artifact, named)
    return serializeArtifact(artifact.data)
  },
  decode(text, at) {
    const [wave, agent] = at.key.split('/') as [string, string]
    return { wave, agent, data: jsonObject(text, 'an artifact file must hold one JSON object') }
  },
}

/** Meta values are text, stored as they are. */
const meta: Codec<Collections['meta']> = {
  encode(text, key) {
    if (typeof text !== 'string')
      throw new FoundryError('INVALID_INPUT', `Cannot store meta ${key}: the value must be text, got ${typeof text}`)
    return text
  },
  decode: (text) => text,
}

/**
 * An open collection's `<key>.json` holds the value as pretty-printed JSON. Values that JSON would
 * change (a non-finite number, a function, `undefined` in an array) are refused rather than stored
 * altered; `undefined` object fields are left out, as absent optional fields.
 */
const jsonCodec = (collection: string): Codec<JsonValue> => ({
  encode(value, key) {
    let text: string | undefined
    try {
      text = JSON.stringify(
        value,
        function (this: unknown, field, inner: unknown) {
          const problem = notJson(inner, Array.isArray(this))
          if (problem)
            throw new FoundryError(
              'INVALID_INPUT',
              `Cannot store ${collection} record ${key}: ${field === '' ? 'the value' : `field ${JSON.stringify(field)}`} is ${problem}, which JSON cannot hold; store a JSON value`,
            )
          return inner
        },
        2,
      )
    } catch (error) {
      if (isFoundryError(error)) throw error
      throw new FoundryError(
        'INVALID_INPUT',
        `Cannot store ${collection} record ${key}: ${(error as Error).message}; store a JSON value`,
        { cause: error },
      )
    }
    if (text === undefined)
      throw new FoundryError(
        'INVALID_INPUT',
        `Cannot store ${collection} record ${key}: the value is undefined; store a JSON value (null for none)`,
      )
    return `${text}\n`
  },
  decode: (text) => parseJson(text) as JsonValue,
})

const CODECS: { [C in KernelCollection]: Codec<Collections[C]> } = { facts, runbooks, contracts, artifacts, meta }

/** How records of `collection` become file text and back. */
export function codecOf<C extends CollectionName>(collection: C): Codec<RecordOf<C>> {
  return (isOpen(collection) ? jsonCodec(collection) : CODECS[collection as KernelCollection]) as unknown as Codec<
    RecordOf<C>
  >
}

/**
 * Whether `value` is a valid record of `key` in a markdown collection (facts, runbooks): how the
 * parsed-record cache checks what it kept before returning it.
 */
export function isRecordOf(collection: 'facts' | 'runbooks') {
  return collection === 'facts'
    ? (value: unknown, key: string): value is Collections['facts'] => checks.fact.check(value) && value.id === key
    : (value: unknown, key: string): value is Collections['runbooks'] =>
        checks.runbook.check(value) && value.slug === key
}

/** Why JSON would not keep `value` as it is, or undefined when it would. */
function notJson(value: unknown, inArray: boolean): string | undefined {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value)
  if (typeof value === 'function' || typeof value === 'symbol') return `a ${typeof value}`
  if (value === undefined && inArray) return 'undefined'
  return undefined
}

function refuse(what: string, key: string, check: Validator<unknown>, value: unknown, mismatch: string | undefined) {
  // `check` is cheap; `problems` walks every error, so it runs only for a message.
  const problems = check.check(value) ? [] : check.problems(value)
  if (mismatch) problems.push(mismatch)
  if (problems.length) throw new FoundryError('INVALID_INPUT', `Cannot store ${what} ${key}: ${problems.join('; ')}`)
}

function jsonObject(text: string, expected: string): Record<string, unknown> {
  const value = parseJson(text)
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new FormatError(expected)
  return value as Record<string, unknown>
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new FormatError(
      `invalid JSON${position(text, (error as Error).message)}: ${(error as Error).message.replace(/ in JSON at position \d+.*$/, '')}`,
    )
  }
}

/** ` at line L, column C` from a JSON.parse message that names a position. */
function position(text: string, message: string): string {
  const at = /at position (\d+)/.exec(message)
  if (!at) return ''
  const before = text.slice(0, Number(at[1]))
  const line = before.split('\n').length
  return ` at line ${line}, column ${before.length - before.lastIndexOf('\n')}`
}
