import { validator } from '@foundry/kernel'
import { Type, type Static } from 'typebox'
import { parseAge } from './engine/run-search.js'

/** The `marbles` key of `.foundry/config.json`: every key optional, unknown keys refused. */
export const MarblesConfigSchema = Type.Object(
  {
    concurrency: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'Runs the engine owning a folder or SQLite state executes at once (serve --concurrency overrides). Default 8',
      }),
    ),
    retention: Type.Optional(
      Type.String({
        pattern: '^[0-9]+[smhdw]$',
        description:
          'Finished runs older than this are pruned by marbles prune, and hourly by marbles serve: 30d, 12h, 2w',
      }),
    ),
  },
  { additionalProperties: false },
)
export type MarblesConfig = Static<typeof MarblesConfigSchema>

/** What the `marbles` key sets, checked: INVALID_INPUT naming the file and the key otherwise. */
export function resolveMarblesConfig(
  raw: unknown,
  file = '.foundry/config.json',
): { concurrency?: number; retentionMs?: number } {
  if (raw === undefined || (typeof raw === 'object' && raw !== null && !Object.keys(raw).length)) return {}
  const config = validator(MarblesConfigSchema).parse(raw, `${file}: marbles`)
  return {
    ...(config.concurrency !== undefined && { concurrency: config.concurrency }),
    ...(config.retention !== undefined && { retentionMs: parseAge(config.retention, `${file}: marbles.retention`) }),
  }
}
