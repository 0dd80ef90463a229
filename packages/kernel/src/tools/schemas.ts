import { FactSchema } from '../schema/fact.js'
import { ProposalSchema } from '../schema/proposal.js'
import type { Static } from 'typebox'
import { Type } from '../schema/typebox.js'
import { lazyObject } from '../schema/lazy.js'

/*
 * The tools' schemas. A new tool's input schema goes here too; the inputs the kernel's services
 * also validate with live in ../schema/inputs.ts.
 */

/**
 * The `output` of each tool: the `structuredContent` it returns beside its text (not published in
 * `tools/list`: every session would pay for it, and the text says what the call did). It is
 * the kernel's result without its rendered `text`, and without whole documents (a runbook's body,
 * INDEX.md, an artifact): those are in the text already, and a tool never pays for them twice.
 * `foundry <command> --json` prints the same shapes.
 */

const IndexFigures = lazyObject(() =>
  Type.Object(
    {
      listed: Type.Integer({ description: 'Facts listed in INDEX.md' }),
      total: Type.Integer({ description: 'Active facts' }),
      omitted: Type.Integer({ description: 'Active facts left out over budget' }),
      tokens: Type.Integer({ description: 'Estimated tokens of INDEX.md' }),
      budget: Type.Integer({ description: 'indexTokenBudget' }),
    },
    { additionalProperties: false },
  ),
)
export type IndexFigures = Static<typeof IndexFigures>

/** `foundry search --json`: memory_search is `textOnly`, so MCP clients get its text alone (tools.ts). */
export const SearchOutputSchema = lazyObject(() =>
  Type.Object({
    query: Type.String(),
    hits: Type.Array(Type.Object({ fact: FactSchema, score: Type.Number() }), { description: 'Best first' }),
    active: Type.Optional(Type.Integer({ description: 'Active facts in memory; present when nothing matched' })),
    missing: Type.Optional(Type.Array(Type.String())),
    brief: Type.Optional(
      Type.Integer({ description: 'Hits past memoryRetrieval.wholeFacts, one line each in the text' }),
    ),
    dropped: Type.Optional(
      Type.Integer({
        description: 'Hits left out below the relevance floor (memoryRetrieval.minRelevance, minRelevanceRatio)',
      }),
    ),
  }),
)
export type SearchOutput = Static<typeof SearchOutputSchema>

/** One fact's result, or with `facts` a batch's: one result a fact, in order, and no action or id at the top. */
export const WriteOutputSchema = lazyObject(() =>
  Type.Object({
    action: Type.Optional(
      Type.Enum(['created', 'duplicate'], {
        description: 'duplicate: an identical fact exists and nothing was written',
      }),
    ),
    id: Type.Optional(Type.String({ description: 'The new fact, or the existing identical one' })),
    supersedes: Type.Optional(Type.String({ description: 'The fact this one replaced' })),
    similar: Type.Optional(
      Type.Array(Type.Object({ id: Type.String(), title: Type.String(), reason: Type.String() }), {
        description: 'Close active facts this write did not supersede, and why; pass supersedes to replace one',
      }),
    ),
    // Each item holds the fields above, not repeated here: every schema costs tokens in every session.
    facts: Type.Optional(
      Type.Array(Type.Object({}), { description: "A batch: each fact's action, id, supersedes and similar, in order" }),
    ),
    index: IndexFigures,
  }),
)
export type WriteOutput = Static<typeof WriteOutputSchema>

/** Small on purpose (every tool costs tokens in every session): the index line is in the text. */
export const ForgetOutputSchema = lazyObject(() =>
  Type.Object({
    id: Type.String(),
    reason: Type.String(),
    forgotten: Type.String({ description: 'ISO 8601' }),
  }),
)
export type ForgetOutput = Static<typeof ForgetOutputSchema>

/** `memory_review`: list, reject and edit return proposals; accept returns memory_write's result and the proposal's id. */
export const ReviewOutputSchema = lazyObject(() =>
  Type.Object({
    proposals: Type.Optional(Type.Array(ProposalSchema())),
    proposal: Type.Optional(Type.String()),
    action: Type.Optional(Type.Enum(['created', 'duplicate'])),
    id: Type.Optional(Type.String()),
    supersedes: Type.Optional(Type.String()),
    similar: Type.Optional(Type.Array(Type.Object({ id: Type.String(), title: Type.String(), reason: Type.String() }))),
    indexStale: Type.Optional(Type.String()),
  }),
)
export type ReviewOutput = Static<typeof ReviewOutputSchema>

export const IndexOutputSchema = lazyObject(() =>
  Type.Object({
    path: Type.String({ description: 'Where INDEX.md was written' }),
    index: IndexFigures,
  }),
)
export type IndexOutput = Static<typeof IndexOutputSchema>

const RunbookEntry = lazyObject(() =>
  Type.Object({ slug: Type.String(), title: Type.String(), trigger: Type.Optional(Type.String()) }),
)

export const RunbookListOutputSchema = lazyObject(() => Type.Object({ runbooks: Type.Array(RunbookEntry) }))
export type RunbookListOutput = Static<typeof RunbookListOutputSchema>

export const RunbookGetOutputSchema = RunbookEntry
export type RunbookGetOutput = Static<typeof RunbookGetOutputSchema>

export const ValidateOutputSchema = lazyObject(() =>
  Type.Object({
    schema: Type.String({ description: 'The contract id' }),
    valid: Type.Boolean(),
    violations: Type.Array(Type.String(), { description: 'One sentence each; empty when valid' }),
  }),
)
export type ValidateOutput = Static<typeof ValidateOutputSchema>

export const BlackboardWriteOutputSchema = lazyObject(() =>
  Type.Object({
    written: Type.Boolean({ description: 'false: the artifact broke its contract and nothing was written' }),
    path: Type.Optional(Type.String()),
    bytes: Type.Optional(Type.Integer()),
    tokens: Type.Optional(Type.Integer({ description: 'What reading the artifact in full would cost' })),
    version: Type.Optional(Type.Integer()),
    replaced: Type.Optional(Type.Boolean({ description: 'The one replaced is kept as version - 1' })),
    violations: Type.Array(Type.String()),
  }),
)
export type BlackboardWriteOutput = Static<typeof BlackboardWriteOutputSchema>

export const BlackboardReadOutputSchema = lazyObject(() =>
  Type.Object({
    wave: Type.String({ description: 'The wave, sanitised' }),
    artifacts: Type.Array(
      Type.Object({
        file: Type.String(),
        wave: Type.String(),
        agent: Type.String(),
        schema: Type.Optional(Type.String()),
        producedBy: Type.Optional(Type.String()),
        tokens: Type.Integer(),
        summary: Type.Optional(Type.String({ description: 'From summary, title or goal; at most 400 characters' })),
        version: Type.Integer(),
      }),
    ),
  }),
)
export type BlackboardReadOutput = Static<typeof BlackboardReadOutputSchema>

export const TokenReportOutputSchema = lazyObject(() =>
  Type.Object({
    indexTokens: Type.Integer(),
    indexBudget: Type.Integer(),
    facts: Type.Integer(),
    factTokens: Type.Integer(),
    runbooks: Type.Integer(),
    runbookTokens: Type.Integer(),
    artifacts: Type.Integer(),
    artifactTokens: Type.Integer(),
    events: Type.Record(Type.String(), Type.Integer(), { description: 'Recorded events by kind' }),
    eagerTokens: Type.Integer({ description: 'Loading every fact, runbook and blackboard artifact at session start' }),
    indexFirstTokens: Type.Integer({ description: 'The index-first path: the index' }),
    savingTokens: Type.Integer(),
    savingPercent: Type.Integer(),
    usage: Type.Optional(
      Type.Object(
        {
          runs: Type.Array(
            Type.Object({
              source: Type.String(),
              runId: Type.String(),
              agent: Type.String(),
              inputTokens: Type.Number(),
              outputTokens: Type.Number(),
              costUsd: Type.Optional(Type.Number()),
            }),
            { description: 'One agent run each, newest first' },
          ),
          agents: Type.Array(
            Type.Object({
              source: Type.String(),
              agent: Type.String(),
              runs: Type.Number(),
              inputTokens: Type.Number(),
              outputTokens: Type.Number(),
              costUsd: Type.Optional(Type.Number()),
            }),
            { description: 'Totals by source and agent' },
          ),
          inputTokens: Type.Number(),
          outputTokens: Type.Number(),
          costUsd: Type.Number(),
        },
        { description: 'Agent runs (Marbles) from <consumer>.usage events; absent when none' },
      ),
    ),
  }),
)
export type TokenReportOutput = Static<typeof TokenReportOutputSchema>
