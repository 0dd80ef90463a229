import type { Static } from 'typebox'
import { Type } from './typebox.js'
import { ConfidenceSchema, FACT_ID_PATTERN, FactInputSchema, FactTypeSchema, SCOPE_PATTERN } from './fact.js'
import { lazySchema } from './lazy.js'

/**
 * A proposal's status. `proposed`: waiting in the review queue, stored apart from the facts, so never
 * in search, the index, the catalog's counts or a write's dedupe candidates. `accepted`: written as
 * a fact through the normal write path (`factId`). `rejected`: kept with its reason, never written.
 */
export const PROPOSAL_STATUSES = ['proposed', 'accepted', 'rejected'] as const
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number]

/** The open collection holding the review queue, one record a proposal by id. */
export const PROPOSALS_COLLECTION = 'memory.proposals'
export const PROPOSAL_ID_PATTERN = '^proposal-[0-9]{4,15}$'

/** A proposed fact: the `memory_write` input it would write, who proposed it, and what became of it. */
export const ProposalSchema = lazySchema(() =>
  Type.Object(
    {
      id: Type.String({ pattern: PROPOSAL_ID_PATTERN }),
      status: Type.Enum([...PROPOSAL_STATUSES]),
      /** What accepting writes (`source` says where the fact comes from). */
      fact: FactInputSchema,
      /** Who proposed it: a token's name, or `capture` for a session distilled by a run. */
      author: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
      /** Where it was proposed from: a session or run id, one line. */
      origin: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      created: Type.String({ minLength: 10, description: 'ISO 8601 timestamp' }),
      /** When it was accepted or rejected, ISO 8601. */
      decided: Type.Optional(Type.String({ minLength: 10 })),
      /** Accepted: the fact written, or the identical fact that already existed. */
      factId: Type.Optional(Type.String({ pattern: FACT_ID_PATTERN })),
      /** Rejected: why, when given. */
      reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    },
    { additionalProperties: false },
  ),
)
export type Proposal = Static<ReturnType<typeof ProposalSchema>>

/** What an edit may change in a proposed fact (any subset). */
export const ProposalEditSchema = lazySchema(() =>
  Type.Object(
    {
      title: Type.Optional(FactInputSchema.properties.title),
      body: Type.Optional(FactInputSchema.properties.body),
      type: Type.Optional(FactTypeSchema),
      scope: Type.Optional(Type.String({ pattern: SCOPE_PATTERN, maxLength: 200 })),
      tags: Type.Optional(FactInputSchema.properties.tags),
      confidence: Type.Optional(ConfidenceSchema),
    },
    { additionalProperties: false },
  ),
)
export type ProposalEdit = Static<ReturnType<typeof ProposalEditSchema>>

/** The `memory_review` tool's input: kept small, as every session pays for the tool list. */
export const ReviewInputSchema = lazySchema(() =>
  Type.Object(
    {
      action: Type.Enum(['list', 'accept', 'reject', 'edit']),
      id: Type.Optional(Type.String({ pattern: PROPOSAL_ID_PATTERN, description: 'proposal-NNNN; not for list' })),
      reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
      changes: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description: 'edit: title, body, type, scope, tags or confidence',
        }),
      ),
    },
    { additionalProperties: false },
  ),
)
export type ReviewInput = Static<ReturnType<typeof ReviewInputSchema>>
