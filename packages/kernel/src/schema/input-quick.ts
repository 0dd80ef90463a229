import { FACT_TYPES, SCOPE_PATTERN } from './fact.js'
import { sized } from './fact-quick.js'
import type { SearchInput } from './inputs.js'

/*
 * `memory_search`'s arguments checked by plain code before SearchInputSchema's own check, as the stored
 * fact is (fact-quick.ts): a new `foundry mcp` session's first question, and every hook, checks one,
 * where TypeBox's interpreter walking the schema the first time costs a new process milliseconds. True
 * only for arguments the schema accepts; false means "not sure", and the schema decides, with its own
 * messages.
 */

const SCOPE = new RegExp(SCOPE_PATTERN, 'u')
const TYPES: ReadonlySet<unknown> = new Set(FACT_TYPES)
const KEYS: ReadonlySet<string> = new Set(['query', 'type', 'scope', 'limit'])

/** True only when SearchInputSchema accepts `value`; false: check it with the schema. */
export function isPlainSearchInput(value: unknown): value is SearchInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const input = value as Record<string, unknown>
  for (const key of Object.keys(input)) if (!KEYS.has(key) || input[key] === undefined) return false
  const { type, scope, limit } = input
  return (
    sized(input.query, 1, 2000) &&
    (!('type' in input) || TYPES.has(type)) &&
    (!('scope' in input) || (sized(scope, 1, 200) && SCOPE.test(scope))) &&
    (!('limit' in input) || (Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= 25))
  )
}
