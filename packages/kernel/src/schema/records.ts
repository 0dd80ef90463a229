import type { Static } from 'typebox'
import { Type } from './typebox.js'
import { lazyObject } from './lazy.js'

export const SLUG_PATTERN = '^[a-z0-9][a-z0-9._-]{0,79}$'
export const CONTRACT_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$'

/** A runbook: `runbooks/<slug>.md`, front matter `title` and `trigger`, body in markdown. */
export const RunbookSchema = lazyObject(() =>
  Type.Object(
    {
      slug: Type.String({ pattern: SLUG_PATTERN }),
      title: Type.String({ minLength: 1, maxLength: 200 }),
      trigger: Type.Optional(
        Type.String({
          maxLength: 500,
          description: 'Comma-separated phrases; a prompt containing one triggers the runbook',
        }),
      ),
      body: Type.String(),
    },
    { additionalProperties: false },
  ),
)
export type Runbook = Static<typeof RunbookSchema>

/** A project contract: `contracts/<id>.json` holds the JSON Schema itself. */
export const ContractSchema = lazyObject(() =>
  Type.Object(
    {
      id: Type.String({ pattern: CONTRACT_ID_PATTERN }),
      schema: Type.Record(Type.String(), Type.Unknown()),
    },
    { additionalProperties: false },
  ),
)
export type Contract = Static<typeof ContractSchema>

/** A blackboard artifact: `blackboard/<wave>/<agent>.json` holds `data`, whose `schema` and `producedBy` the kernel sets. */
export const ArtifactSchema = lazyObject(() =>
  Type.Object(
    {
      // Names as `sanitizeName` stores them: percent-encoded, up to ENCODED_NAME_MAX_CHARS.
      wave: Type.String({ minLength: 1, maxLength: 240 }),
      agent: Type.String({ minLength: 1, maxLength: 240 }),
      data: Type.Record(Type.String(), Type.Unknown()),
    },
    { additionalProperties: false },
  ),
)
export type Artifact = Static<typeof ArtifactSchema>
