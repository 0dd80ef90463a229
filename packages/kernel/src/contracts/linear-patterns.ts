import type { RE2JS as RE2 } from 're2js'
import { validator, type Validator } from '../schema/validate.js'

/*
 * A project contract's regular expressions (`pattern`, `patternProperties`) run on RE2 (re2js), an
 * engine whose time is linear in the input, never on JavaScript's backtracking one: a pattern with
 * overlapping alternatives (`^(a|aa)+$`) cannot hold the event loop for minutes on a crafted string.
 *
 * RE2 runs the JSON Schema pattern dialect (ECMA-262) except lookahead, lookbehind and
 * backreferences, which have no linear-time algorithm: a contract using them is refused when it
 * loads, naming the pattern. `\uXXXX` and `\u{X…}` are translated; `\d`, `\w`, `\s` and `\b` are
 * ASCII-only, as in JavaScript without the `v` flag (but for `\s`, which then leaves out non-ASCII
 * spaces such as U+00A0).
 */

/**
 * The contract schema rewritten for RE2 (`withLinearPatterns`). re2js is loaded here, on the first
 * contract that has a pattern, so a process that validates none never loads it.
 */
export async function linearPatterns(schema: unknown): Promise<unknown> {
  if (!JSON.stringify(schema).includes('"pattern')) return schema
  const { RE2JS } = await import('re2js')
  return withLinearPatterns(schema, RE2JS)
}

/**
 * A `pattern` as TypeBox takes it (a RegExp) whose `test` runs on RE2; it prints as the pattern
 * written, so messages show what the contract says.
 */
class LinearRegExp extends RegExp {
  constructor(
    private readonly written: string,
    private readonly re2: RE2,
  ) {
    super('(?:)')
  }
  override test(text: string): boolean {
    return this.re2.matcher(text).find()
  }
  override toString(): string {
    return this.written
  }
}

/** Lookaround (`(?=`, `(?!`, `(?<=`, `(?<!`) and backreferences (`\1`, `\k<name>`): what no linear-time engine runs. */
const BACKTRACKING_ONLY = /\\[1-9]|\\k<|\(\?<?[=!]/

/** A `pattern` compiled on RE2; throws, naming where and why, for what RE2 cannot run. */
function compile(engine: typeof RE2, pattern: string, where: string): LinearRegExp {
  if (BACKTRACKING_ONLY.test(pattern.replace(/\\\\/g, '')))
    // an escaped backslash escapes nothing after it
    throw new Error(
      `${where} ${JSON.stringify(pattern)} uses lookahead, lookbehind or a backreference, which no linear-time engine can run; rewrite it without them`,
    )
  try {
    return new LinearRegExp(pattern, engine.compile(translate(pattern)))
  } catch (error) {
    throw new Error(
      `${where} ${JSON.stringify(pattern)} is not a regular expression this engine reads: ${(error as Error).message}`,
    )
  }
}

/** ECMA-262 escapes RE2 spells otherwise: `\uXXXX` and `\u{X…}` become `\x{…}`. */
function translate(pattern: string): string {
  return pattern.replace(/\\(\\|u\{([0-9A-Fa-f]+)\}|u([0-9A-Fa-f]{4}))/g, (all, _, braced?: string, four?: string) => {
    const hex = braced ?? four
    return hex === undefined ? all : `\\x{${hex}}`
  })
}

/**
 * A copy of `schema` whose every `pattern` is an RE2 matcher and whose `patternProperties` (with the
 * `additionalProperties` beside it, which depends on them) is checked by a refinement that matches
 * keys on RE2 and validates their values with compiled sub-schemas. Throws an Error naming the place
 * for a pattern RE2 cannot run, or for `unevaluatedProperties` beside `patternProperties`.
 */
function withLinearPatterns(schema: unknown, engine: typeof RE2, at = '#'): unknown {
  if (typeof schema !== 'object' || schema === null) return schema
  if (Array.isArray(schema)) return schema.map((item, i) => withLinearPatterns(item, engine, `${at}/${i}`))
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') out[key] = value
    else if (key === 'pattern' && typeof value === 'string') out[key] = compile(engine, value, `${at}/pattern`)
    else if (key === 'properties' && isObject(value))
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, withLinearPatterns(sub, engine, `${at}/properties/${name}`)]),
      )
    else out[key] = withLinearPatterns(value, engine, `${at}/${key}`)
  }
  const patterned = (schema as Record<string, unknown>).patternProperties
  if (!isObject(patterned)) return out
  if ('unevaluatedProperties' in out)
    throw new Error(
      `${at}: unevaluatedProperties beside patternProperties is not supported in a contract; use additionalProperties`,
    )
  const rules = Object.entries(patterned).map(([pattern, sub]) => ({
    pattern: compile(engine, pattern, `${at}/patternProperties`),
    check: validator(withLinearPatterns(sub, engine, `${at}/patternProperties/${pattern}`) as object),
  }))
  const named = new Set(Object.keys(isObject(out.properties) ? out.properties : {}))
  const additional = out.additionalProperties
  const rest: Validator<unknown> | boolean | undefined =
    additional === undefined || typeof additional === 'boolean' ? additional : validator(additional as object)
  delete out.patternProperties
  delete out.additionalProperties
  const firstProblem = (value: unknown): string | undefined => {
    if (!isObject(value)) return undefined
    for (const [key, item] of Object.entries(value)) {
      let matched = false
      for (const rule of rules) {
        if (!rule.pattern.test(key)) continue
        matched = true
        if (!rule.check.check(item)) return propertyProblem(key, rule.check.problems(item)[0])
      }
      if (matched || named.has(key) || rest === undefined || rest === true) continue
      if (rest === false) return `unknown property "${key}" (no property or pattern names it: remove it)`
      if (!rest.check(item)) return propertyProblem(key, rest.problems(item)[0])
    }
    return undefined
  }
  const refinements = Array.isArray(out['~refine']) ? out['~refine'] : []
  out['~refine'] = [
    ...refinements,
    {
      check: (value: unknown) => firstProblem(value) === undefined,
      error: (value: unknown) => firstProblem(value) ?? 'invalid',
    },
  ]
  return out
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** `property "k" must be string` from a sub-schema's first problem (`input must be string`, `x must be …`). */
function propertyProblem(key: string, problem = 'does not match its schema'): string {
  return problem.startsWith('input ')
    ? `property "${key}" ${problem.slice('input '.length)}`
    : `property "${key}": ${problem}`
}
