import { sized } from './fact-quick.js'
import { type Runbook, SLUG_PATTERN } from './records.js'

/*
 * A stored runbook checked by plain code before RunbookSchema's own check, as a stored fact is
 * (fact-quick.ts): a hook lists the project's runbooks on every prompt. True only for a value the
 * schema accepts; false means "not sure", and the schema decides, with its own messages.
 */

// The schema's pattern, as TypeBox builds it (with the `u` flag).
const SLUG = new RegExp(SLUG_PATTERN, 'u')

/** Every key RunbookSchema lists (it allows no other); a test holds them equal. */
export const RUNBOOK_KEYS: ReadonlySet<string> = new Set(['slug', 'title', 'trigger', 'body'])

/** True only when RunbookSchema accepts `value`; false: check it with the schema. */
export function isPlainRunbook(value: unknown): value is Runbook {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const runbook = value as Record<string, unknown>
  for (const key of Object.keys(runbook)) if (!RUNBOOK_KEYS.has(key) || runbook[key] === undefined) return false
  return (
    typeof runbook.slug === 'string' &&
    SLUG.test(runbook.slug) &&
    sized(runbook.title, 1, 200) &&
    (runbook.trigger === undefined || sized(runbook.trigger, 0, 500)) &&
    typeof runbook.body === 'string'
  )
}
