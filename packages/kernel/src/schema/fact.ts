import type { Static } from 'typebox'
import { Type } from './typebox.js'
import { lazyObject, lazySchema } from './lazy.js'

export const FACT_TYPES = ['decision', 'constraint', 'convention', 'domain', 'risk', 'metric', 'glossary'] as const
export const CONFIDENCES = ['high', 'medium', 'low'] as const
/** `forgotten`: removed by `memory.forget`, kept in storage with its reason; never loaded or found again. */
export const FACT_STATUSES = ['active', 'superseded', 'forgotten'] as const

export const TITLE_MAX_CHARS = 80
export const BODY_MAX_WORDS = 120
export const SCOPE_PATTERN = '^(project|module:[A-Za-z0-9._/@-]+|vertical:[A-Za-z0-9._/@-]+)$'
export const SOURCE_PATTERN = '^(adr-[0-9]{1,6}|conversation|code|external:\\S+)$'
export const DATE_PATTERN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'
/** 4 to 15 digits: every fact number is exact in a JavaScript number (below 2^53), so no two ids ever collide. */
export const FACT_ID_PATTERN = '^fact-[0-9]{4,15}$'
/** The last fact number Foundry gives out (`fact-999999999999999`). */
export const FACT_NUMBER_MAX = 999_999_999_999_999

export type FactType = (typeof FACT_TYPES)[number]
export type Confidence = (typeof CONFIDENCES)[number]
export type FactStatus = (typeof FACT_STATUSES)[number]

/**
 * The fact schemas, built together on the first touch of one (`lazyObject`): a process that only
 * reads and searches facts (a hook, `foundry list`) checks them by plain code and never builds them.
 */
const schemas = lazySchema(() => {
  const factType = Type.Enum([...FACT_TYPES], {
    description: 'decision | constraint | convention | domain | risk | metric | glossary',
  })
  const confidence = Type.Enum([...CONFIDENCES], { description: 'high | medium | low' })
  const Title = Type.String({
    minLength: 1,
    maxLength: TITLE_MAX_CHARS,
    description: 'States the fact itself, not the topic',
  })
  const Body = Type.String({
    minLength: 1,
    maxLength: 4000,
    description: 'Max 120 words. For decision and risk, include `Why:` and `How to apply:` lines',
  })
  const Scope = Type.String({
    pattern: SCOPE_PATTERN,
    description: 'project | module:<name> | vertical:<name>. Defaults to project',
  })
  const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 40, pattern: '^[^\\s,]+$' }), { maxItems: 20 })
  const Source = Type.String({
    pattern: SOURCE_PATTERN,
    description: 'adr-0007 | conversation | code | external:<url>. Defaults to conversation',
  })
  const Expires = Type.String({
    pattern: DATE_PATTERN,
    description: 'YYYY-MM-DD after which the fact stops being loaded',
  })
  const FactId = Type.String({ pattern: FACT_ID_PATTERN })

  /** A stored fact: what `memory/facts/fact-NNNN.md` holds, front matter and body. */
  const fact = Type.Object(
    {
      id: FactId,
      title: Title,
      body: Body,
      type: factType,
      scope: Scope,
      tags: Tags,
      confidence,
      source: Source,
      /** Who wrote it, when known: the name of the team server's token that wrote it (`source` says where the fact comes from). */
      author: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
      created: Type.String({ minLength: 10, description: 'ISO 8601 timestamp' }),
      expires: Type.Optional(Expires),
      supersedes: Type.Optional(FactId),
      supersededBy: Type.Optional(FactId),
      status: Type.Enum([...FACT_STATUSES]),
      /** When `memory.forget` ran, ISO 8601. */
      forgotten: Type.Optional(Type.String({ minLength: 10 })),
      forgottenReason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    },
    { additionalProperties: false },
  )

  // Inputs also bound what a pattern leaves open; a stored fact is read as it is.
  const ScopeInput = Type.String({
    pattern: SCOPE_PATTERN,
    maxLength: 200,
    description: 'project | module:<name> | vertical:<name>. Defaults to project',
  })
  const SourceInput = Type.String({
    pattern: SOURCE_PATTERN,
    maxLength: 500,
    description: 'adr-0007 | conversation | code | external:<url>. Defaults to conversation',
  })

  /** The input of `memory_write`. */
  const input = Type.Object(
    {
      title: Title,
      body: Body,
      type: factType,
      scope: Type.Optional(ScopeInput),
      tags: Type.Optional(Tags),
      confidence: Type.Optional(Type.Enum([...CONFIDENCES], { description: 'Defaults to medium' })),
      source: Type.Optional(SourceInput),
      expires: Type.Optional(Expires),
      supersedes: Type.Optional(
        Type.String({
          pattern: FACT_ID_PATTERN,
          description: 'A fact to supersede (otherwise found by the same-statement rule)',
        }),
      ),
      supersede: Type.Optional(
        Type.Boolean({ description: 'false: no superseding by that rule; `supersedes` still applies. Default true' }),
      ),
    },
    { additionalProperties: false },
  )

  /** The input of `memory_forget`. */
  const forget = Type.Object(
    {
      id: FactId,
      reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why it is wrong' }),
    },
    { additionalProperties: false },
  )
  return { factType, confidence, fact, input, forget }
})

export const FactTypeSchema = lazyObject(() => schemas().factType)
export const ConfidenceSchema = lazyObject(() => schemas().confidence)
/** A stored fact: what `memory/facts/fact-NNNN.md` holds, front matter and body. */
export const FactSchema = lazyObject(() => schemas().fact)
export type Fact = Static<typeof FactSchema>
/** The input of `memory_write`. */
export const FactInputSchema = lazyObject(() => schemas().input)
export type FactInput = Static<typeof FactInputSchema>
/** The input of `memory_forget`. */
export const ForgetInputSchema = lazyObject(() => schemas().forget)
export type ForgetInput = Static<typeof ForgetInputSchema>
