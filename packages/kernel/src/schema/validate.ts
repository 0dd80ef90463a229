import type { Static, TSchema } from 'typebox'
import { Check, Compile, Errors } from './typebox.js'
import { FoundryError } from '../errors.js'
import { DATE_PATTERN, FACT_ID_PATTERN, FactInputSchema, FactSchema, SCOPE_PATTERN, SOURCE_PATTERN } from './fact.js'
import { isPlainFact, isPlainFactInput } from './fact-quick.js'
import { CONTRACT_ID_PATTERN, RunbookSchema, SLUG_PATTERN } from './records.js'
import { isPlainRunbook } from './runbook-quick.js'

interface SchemaError {
  keyword: string
  instancePath: string
  params: Record<string, unknown>
  message: string
}

/**
 * A check for one schema: `parse` returns the typed value or throws INVALID_INPUT naming the field.
 * The first `INTERPRETED_CHECKS` checks walk the schema (TypeBox's interpreter); only a validator
 * used more often than that is compiled. Compiling costs a new process 2–10 ms a schema, more than
 * a hook or CLI call checks with it; a server compiles the validators it keeps using.
 */
export interface Validator<T> {
  readonly schema: TSchema | object
  check(value: unknown): value is T
  /** Every violation as a one-line sentence, in document order, without duplicates. */
  problems(value: unknown): string[]
  parse(value: unknown, what?: string): T
}

/**
 * A validator of a schema built on its first use (`lazySchema`): a process that never checks such a
 * value builds neither the schema nor the validator.
 */
export function lazyValidator<S extends TSchema>(schema: () => S): Validator<Static<S>> {
  let built: Validator<Static<S>> | undefined
  const get = () => {
    built ??= validator(schema())
    return built
  }
  return {
    get schema() {
      return get().schema
    },
    check: (value): value is Static<S> => get().check(value),
    problems: (value) => get().problems(value),
    parse: (value, what) => get().parse(value, what),
  }
}

/** Checks a validator answers by walking its schema before it is compiled. */
export const INTERPRETED_CHECKS = 8

/**
 * Plain-code checks of the schemas a new process checks most (the stored fact, a write's input, a
 * search's arguments), tried before the schema: each answers true only for a value its schema
 * accepts, and false when unsure.
 */
const QUICK_CHECKS = new WeakMap<object, (value: unknown) => boolean>([
  [FactSchema, isPlainFact],
  [FactInputSchema, isPlainFactInput],
  [RunbookSchema, isPlainRunbook],
])

/** `schema`, its validators trying `quick` first: `quick` answers true only for values `schema` accepts. */
export function withQuickCheck<S extends object>(schema: S, quick: (value: unknown) => boolean): S {
  QUICK_CHECKS.set(schema, quick)
  return schema
}

export function validator<S extends TSchema>(schema: S): Validator<Static<S>>
export function validator<T = unknown>(schema: object): Validator<T>
export function validator(schema: object): Validator<unknown> {
  let compiled: ReturnType<typeof Compile> | undefined
  let uses = 0
  const quick = QUICK_CHECKS.get(schema)
  const check = (value: unknown): boolean => {
    if (quick?.(value)) return true
    if (isEmptyObject(value) && acceptsEmptyObject(schema)) return true
    if (compiled) return compiled.Check(value)
    if (++uses <= INTERPRETED_CHECKS) return Check(schema as TSchema, value)
    return (compiled = Compile(schema as TSchema)).Check(value)
  }
  // The interpreter's errors are the ones a compiled validator reports (it walks the schema for them too).
  const problems = (value: unknown) => describeErrors(Errors(schema as TSchema, value) as SchemaError[])
  return {
    schema,
    check: (value): value is unknown => check(value),
    problems: (value) => (check(value) ? [] : problems(value)),
    parse(value, what = 'input') {
      if (check(value)) return value
      throw new FoundryError('INVALID_INPUT', `Invalid ${what}: ${problems(value).join('; ')}`)
    },
  }
}

/** A plain object without keys: `{}`. */
export function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype &&
    Object.keys(value).length === 0
  )
}

/** The keywords of an object schema that let `{}` through whatever their value (they constrain keys it does not have). */
const EMPTY_SAFE: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'required',
  'description',
  'title',
  'examples',
  'default',
  '$id',
  '$schema',
])

/**
 * True when `schema` accepts `{}` by its keywords alone: `type: 'object'`, nothing required, and no
 * keyword that could reject an empty object (adapter options, most often left empty, pass unchecked).
 * False means "not sure": the schema decides.
 */
function acceptsEmptyObject(schema: object): boolean {
  const s = schema as { type?: unknown; required?: unknown }
  return (
    s.type === 'object' &&
    (s.required === undefined || (Array.isArray(s.required) && s.required.length === 0)) &&
    Object.keys(schema).every((key) => EMPTY_SAFE.has(key))
  )
}

/**
 * The forms the kernel's patterns accept, in words: a `pattern` error names these, never the
 * regular expression. A pattern not listed (a project contract's own) is shown as written.
 */
const PATTERN_FORMS: ReadonlyMap<string, string> = new Map([
  [SOURCE_PATTERN, 'use adr-<number> (e.g. adr-0007), conversation, code or external:<url>'],
  [SCOPE_PATTERN, 'use project, module:<name> or vertical:<name> (a name of letters, digits and . _ / @ -)'],
  [DATE_PATTERN, 'use a date as YYYY-MM-DD'],
  [FACT_ID_PATTERN, 'use a fact id, fact- and 4 to 15 digits (e.g. fact-0012)'],
  ['^[^\\s,]+$', 'use one word, without spaces or commas'], // a tag
  [SLUG_PATTERN, 'use lowercase letters, digits, . _ and -, starting with a letter or digit, at most 80 characters'],
  [CONTRACT_ID_PATTERN, 'use letters, digits, . _ and -, starting with a letter or digit, at most 80 characters'],
])

/** `/tags/0` becomes `tags[0]`; the root is `input`. */
export function fieldName(instancePath: string, root = 'input'): string {
  if (!instancePath) return root
  return instancePath
    .slice(1)
    .split('/')
    .map((part, i) =>
      /^\d+$/.test(part) ? `[${part}]` : (i ? '.' : '') + part.replace(/~1/g, '/').replace(/~0/g, '~'),
    )
    .join('')
}

function describeErrors(errors: SchemaError[]): string[] {
  const out: string[] = []
  const seen = new Set<string>()
  const add = (line: string) => {
    if (!seen.has(line)) seen.add(line), out.push(line)
  }
  // A union of constants reports one `const` error per member, then `anyOf`: fold them into one line.
  const allowed = new Map<string, unknown[]>()
  for (const e of errors) {
    if (e.keyword === 'const') {
      const list = allowed.get(e.instancePath) ?? []
      list.push(e.params.allowedValue)
      allowed.set(e.instancePath, list)
    }
  }
  for (const e of errors) {
    const field = fieldName(e.instancePath)
    switch (e.keyword) {
      case 'boolean':
      case 'const':
        continue
      case 'required':
        for (const name of (e.params.requiredProperties as string[] | undefined) ?? [
          e.params.missingProperty as string,
        ])
          add(`missing required property "${e.instancePath ? `${field}.` : ''}${name}"`)
        continue
      case 'additionalProperties':
        for (const name of (e.params.additionalProperties as string[] | undefined) ?? [])
          add(`unknown property "${e.instancePath ? `${field}.` : ''}${name}" (remove it)`)
        continue
      case 'anyOf': {
        const values = allowed.get(e.instancePath)
        if (values) add(`${field} must be one of ${values.map(String).join(' | ')}`)
        else add(`${field} ${e.message}`)
        continue
      }
      case 'enum':
        add(`${field} must be one of ${(e.params.allowedValues as unknown[]).map(String).join(' | ')}`)
        continue
      case 'maxLength':
        add(`${field} must be at most ${e.params.limit} characters`)
        continue
      case 'minLength':
        add(
          e.params.limit === 1
            ? `${field} must not be empty`
            : `${field} must be at least ${e.params.limit} characters`,
        )
        continue
      case 'pattern':
        add(
          `${field} has the wrong form: ${PATTERN_FORMS.get(String(e.params.pattern)) ?? `expected one matching ${e.params.pattern}`}`,
        )
        continue
      case '~refine': // a check the schema carries as code (a contract's patternProperties): its message says it whole
        add(e.instancePath ? `${field}: ${String(e.params.message)}` : String(e.params.message))
        continue
      default:
        add(`${field} ${e.message}`)
    }
  }
  return out
}
