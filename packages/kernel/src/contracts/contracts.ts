import { definePlugin, type PluginHost } from '../plugin.js'
import { FoundryError, isFoundryError } from '../errors.js'
import { ContractValidateInputSchema } from '../schema/inputs.js'
import { lazyValidator, validator, type Validator } from '../schema/validate.js'
import { builtinContracts } from './builtin.js'
import { linearPatterns } from './linear-patterns.js'

export interface ValidationResult {
  text: string
  schema: string
  valid: boolean
  violations: string[]
}

export interface ContractInfo {
  id: string
  origin: 'builtin' | 'project'
}

const validateInput = lazyValidator(ContractValidateInputSchema)

/** The contract registry: built-ins plus `contracts/<id>.json` of the project. */
/** Contracts: the built-in and project JSON Schemas that artifacts are validated against. */
export interface ContractService {
  /** Every contract id, built-in and project, sorted. */
  list(): Promise<ContractInfo[]>
  /** The JSON Schema of a contract. Throws NOT_FOUND listing the ids that exist. */
  get(id: string): Promise<object>
  /** Violations of `data` against contract `id`, as one-line sentences; empty when valid. */
  violations(id: string, data: unknown): Promise<string[]>
  /** `contract_validate`: exactly one of `data` or `path`. */
  validate(input: unknown): Promise<ValidationResult>
}

export function createContracts(ctx: PluginHost): ContractService {
  const compiled = new Map<string, { source: string; check: Validator<unknown> }>()

  async function list(): Promise<ContractInfo[]> {
    const project = await ctx.storage.list('contracts', { onProblem: ctx.onProblem })
    const ids = new Map<string, ContractInfo>()
    for (const id of Object.keys(builtinContracts())) ids.set(id, { id, origin: 'builtin' })
    for (const c of project) {
      if (ids.has(c.id)) {
        ctx.onProblem({
          collection: 'contracts',
          key: c.id,
          location: ctx.storage.locate('contracts', c.id),
          message: `"${c.id}" is a built-in contract id; the project file is ignored (rename it, e.g. ${c.id.replace(/\.v(\d+)$/, (_, n) => `.v${Number(n) + 1}`)})`,
        })
        continue
      }
      ids.set(c.id, { id: c.id, origin: 'project' })
    }
    return [...ids.values()].sort((a, b) => (a.id < b.id ? -1 : 1))
  }

  /** The JSON Schema of a contract; NOT_FOUND lists the ids that exist. */
  async function get(id: string): Promise<object> {
    const builtin = builtinContracts()[id]
    if (builtin) return builtin
    const stored = /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id) ? await ctx.storage.get('contracts', id) : undefined
    if (stored) return stored.schema
    const known = (await list()).map((c) => c.id)
    throw new FoundryError('NOT_FOUND', `Unknown contract "${id}". Available: ${known.join(', ')}.`)
  }

  async function checker(id: string): Promise<Validator<unknown>> {
    const schema = await get(id)
    const source = JSON.stringify(schema)
    const hit = compiled.get(id)
    if (hit?.source === source) return hit.check
    let check: Validator<unknown>
    try {
      const flaw = schemaFlaw(schema)
      if (flaw) throw new Error(flaw)
      // Built-in contracts are ours; a project's patterns run on a linear-time engine.
      check = validator((builtinContracts()[id] ? schema : await linearPatterns(schema)) as object)
      check.check(null) // compiles now, so a broken schema fails here with its id
    } catch (error) {
      throw new FoundryError(
        'CORRUPT',
        `Contract ${id} (${ctx.storage.locate('contracts', id)}) is not a valid JSON Schema: ${(error as Error).message}`,
        { cause: error },
      )
    }
    compiled.set(id, { source, check })
    return check
  }

  /** Violations of `data` against contract `id`, as one-line sentences; empty when valid. */
  async function violations(id: string, data: unknown): Promise<string[]> {
    const check = await checker(id)
    return check.check(data) ? [] : check.problems(data)
  }

  /** `contract_validate`: exactly one of `data` or `path` (read through the host's `readFile`). */
  async function validate(raw: unknown): Promise<ValidationResult> {
    const input = validateInput.parse(raw, 'contract_validate input')
    if ((input.data === undefined) === (input.path === undefined))
      throw new FoundryError('INVALID_INPUT', 'Provide either `data` or `path`.')
    const data = input.data ?? (await readJson(input.path!))
    const found = await violations(input.schema, data)
    const text = found.length
      ? `INVALID against ${input.schema}:\n${found.map((v) => `- ${v}`).join('\n')}`
      : `VALID against ${input.schema}`
    return { text, schema: input.schema, valid: found.length === 0, violations: found }
  }

  async function readJson(path: string): Promise<unknown> {
    if (!ctx.readFile)
      throw new FoundryError('UNSUPPORTED', 'This host cannot read files; pass the artifact as `data`.')
    const full = /^([A-Za-z]:[\\/]|\/)/.test(path) || !ctx.root ? path : `${ctx.root.replace(/[\\/]+$/, '')}/${path}`
    let text: string
    try {
      text = await ctx.readFile(full)
    } catch (error) {
      if (isFoundryError(error)) throw error // the host's refusal (outside the project, not a file, too large) says it best
      throw new FoundryError('NOT_FOUND', `Cannot read ${full}: ${(error as NodeErrorLike).code ?? 'unreadable'}`, {
        cause: error,
      })
    }
    try {
      return JSON.parse(text)
    } catch {
      // The parser's message quotes the text: name the place only, so no content leaks.
      throw new FoundryError(
        'INVALID_INPUT',
        `${full} is not valid JSON${jsonErrorAt(text)}; pass a file holding one JSON value.`,
      )
    }
  }

  return { list, get, violations, validate }
}

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])

/**
 * The mistakes a JSON Schema compiler accepts silently (and then validates nothing): a wrong `type`,
 * `properties` or `required`. (Patterns are checked as they compile: linear-patterns.ts.)
 */
function schemaFlaw(schema: unknown, at = '#'): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined
  if (Array.isArray(schema)) {
    for (const [i, item] of schema.entries()) {
      const flaw = schemaFlaw(item, `${at}/${i}`)
      if (flaw) return flaw
    }
    return undefined
  }
  const s = schema as Record<string, unknown>
  const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type]
  for (const t of types)
    if (typeof t !== 'string' || !JSON_TYPES.has(t))
      return `${at}/type: "${String(t)}" is not a JSON Schema type (use ${[...JSON_TYPES].join(', ')})`
  if (
    s.properties !== undefined &&
    (typeof s.properties !== 'object' || s.properties === null || Array.isArray(s.properties))
  )
    return `${at}/properties must be an object`
  if (s.required !== undefined && !(Array.isArray(s.required) && s.required.every((r) => typeof r === 'string')))
    return `${at}/required must be an array of property names`
  for (const [key, value] of Object.entries(s)) {
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue
    // A map of names to schemas: each value is a schema, the names are not keywords (a property may be called `type`).
    if (SCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [name, sub] of Object.entries(value)) {
        const flaw = schemaFlaw(sub, `${at}/${key}/${name}`)
        if (flaw) return flaw
      }
      continue
    }
    const flaw = schemaFlaw(value, `${at}/${key}`)
    if (flaw) return flaw
  }
  return undefined
}

const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])

/** ` (line L, column C)` where JSON text first stops parsing, found without quoting it; empty when unknown. */
function jsonErrorAt(text: string): string {
  try {
    JSON.parse(text)
    return ''
  } catch (error) {
    const at = /position (\d+)/.exec((error as Error).message)
    if (!at) return text.trim() === '' ? ' (the file is empty)' : ''
    const before = text.slice(0, Number(at[1]))
    return ` (line ${before.split('\n').length}, column ${before.length - before.lastIndexOf('\n')})`
  }
}

interface NodeErrorLike {
  code?: string
}

export const contractsPlugin = definePlugin({
  name: 'contracts',
  setup: createContracts,
  trace: {
    list: { kind: 'contract_list', data: (r) => ({ contracts: r.length }) },
    validate: {
      kind: 'contract_validate',
      kindOf: (r) => (r.valid ? 'contract_valid' : 'contract_violation'),
      data: (r) => (r.valid ? { schema: r.schema } : { schema: r.schema, violations: r.violations.length }),
    },
  },
})
