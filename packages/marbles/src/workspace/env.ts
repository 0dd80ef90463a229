import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { validator } from '@foundry/kernel'
import { loadVarlockEnv, VARLOCK_SCHEMA_FILE } from './varlock-env.js'

export const ENV_SCHEMA_FILE = 'env.schema.json'

/**
 * The workspace's environment, before any module loads: through Varlock when `dir` holds a
 * `.env.schema` or a `.env` (`loadVarlockEnv`); else the deprecated `env.schema.json`, checked as
 * before and its defaults set in `env`, with one line on stderr saying so; else nothing.
 */
export async function loadEnv(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<Record<string, unknown>> {
  const legacy = join(dir, ENV_SCHEMA_FILE)
  if (existsSync(join(dir, VARLOCK_SCHEMA_FILE)) || existsSync(join(dir, '.env'))) {
    if (existsSync(legacy))
      process.stderr.write(`marbles: ${legacy} is ignored beside ${VARLOCK_SCHEMA_FILE}: delete it\n`)
    return loadVarlockEnv(dir, env)
  }
  if (!existsSync(legacy)) return {}
  process.stderr.write(
    `marbles: ${legacy} is deprecated: declare the variables in ${VARLOCK_SCHEMA_FILE} (Varlock) beside it\n`,
  )
  const values = checkEnv(dir, env)
  for (const [name, value] of Object.entries(values))
    if (env[name] === undefined || env[name] === '') env[name] = String(value)
  return values
}

/**
 * The deprecated environment schema, `env.schema.json` beside the modules: a JSON Schema object
 * whose `properties` name the variables (`type` string, number, integer or boolean; `enum`,
 * `pattern`, `minLength`, `minimum`, `maximum`, `default`…) and whose `required` lists the ones that
 * must be set. Checked before any module loads.
 */
export interface EnvSchema {
  type?: 'object'
  properties?: Record<string, Record<string, unknown>>
  required?: string[]
}

/**
 * Check `env` against the schema in `dir`, if there is one, and return the variables it declares
 * (defaults filled, numbers and booleans converted). A missing or invalid variable throws one line
 * that names the variable and what it must be: never its value.
 */
export function checkEnv(dir: string, env: NodeJS.ProcessEnv = process.env): Record<string, unknown> {
  const file = join(dir, ENV_SCHEMA_FILE)
  if (!existsSync(file)) return {}
  let schema: EnvSchema
  try {
    schema = JSON.parse(readFileSync(file, 'utf8')) as EnvSchema
  } catch (error) {
    throw new Error(`Cannot read ${file}: ${(error as Error).message}`)
  }
  if (typeof schema !== 'object' || schema === null || typeof (schema.properties ?? {}) !== 'object')
    throw new Error(`${file} must hold a JSON Schema object with "properties"`)
  const out: Record<string, unknown> = {}
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const raw = env[name]
    if (raw === undefined || raw === '') {
      if ('default' in property) out[name] = property.default
      else if (schema.required?.includes(name))
        throw new Error(`Environment variable ${name} is missing (required by ${file})`)
      continue
    }
    const value = convert(raw, property.type)
    const problems = value === INVALID ? [`must be ${String(property.type)}`] : validator(property).problems(value)
    if (problems.length) throw new Error(`Environment variable ${name} is invalid (${file}): ${describe(property)}`)
    out[name] = value
  }
  return out
}

const INVALID = Symbol('invalid')

function convert(raw: string, type: unknown): unknown {
  if (type === 'number' || type === 'integer')
    return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : INVALID
  if (type === 'boolean') return raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : INVALID
  return raw
}

/** What the variable must be, from its schema alone (never from the value). */
function describe(property: Record<string, unknown>): string {
  const parts = [`must be ${String(property.type ?? 'a string')}`]
  if (Array.isArray(property.enum)) parts.push(`one of ${property.enum.map((v) => JSON.stringify(v)).join(', ')}`)
  if (typeof property.pattern === 'string') parts.push(`matching /${property.pattern}/`)
  if (typeof property.minLength === 'number') parts.push(`at least ${property.minLength} characters`)
  if (typeof property.maxLength === 'number') parts.push(`at most ${property.maxLength} characters`)
  if (typeof property.minimum === 'number') parts.push(`≥ ${property.minimum}`)
  if (typeof property.maximum === 'number') parts.push(`≤ ${property.maximum}`)
  return parts.join(', ')
}
