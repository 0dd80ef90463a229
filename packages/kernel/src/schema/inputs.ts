import type { Static } from 'typebox'
import { Type } from './typebox.js'
import { FactInputSchema, FactTypeSchema, SCOPE_PATTERN } from './fact.js'
import { isPlainSearchInput } from './input-quick.js'
import { lazyObject, lazySchema } from './lazy.js'
import { SLUG_PATTERN } from './records.js'
import { withQuickCheck } from './validate.js'

/**
 * Inputs of the kernel's operations; the MCP server publishes these as the tools' `inputSchema`. Each is
 * built on its first call (`lazySchema`); `memory_search`'s, the one every session's first question
 * checks, is a stand-in built on its first touch (`lazyObject`), paired with its plain-code check, so
 * a search its plain check passes builds nothing.
 */
export const SearchInputSchema = withQuickCheck(
  lazyObject(() =>
    Type.Object(
      {
        query: Type.String({ minLength: 1, maxLength: 2000, description: 'Keywords describing what you need to know' }),
        type: Type.Optional(FactTypeSchema),
        scope: Type.Optional(
          Type.String({
            pattern: SCOPE_PATTERN,
            maxLength: 200,
            description: 'Only facts of this scope, e.g. module:billing',
          }),
        ),
        limit: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 25, description: 'Default 8 (memoryRetrieval.maxFacts)' }),
        ),
      },
      { additionalProperties: false },
    ),
  ),
  isPlainSearchInput,
)
export type SearchInput = Static<typeof SearchInputSchema>

/** The most facts one `memory_write` call stores (`memory.writeMany`). */
export const WRITE_BATCH_MAX = 500

/**
 * The `memory_write` tool's input: one fact's fields (the kernel then requires title, body and
 * type), or `facts` in their place, a batch of such facts (each checked by the kernel, which names
 * its position) written in one section.
 */
export const MemoryWriteInputSchema = lazySchema(() =>
  Type.Object(
    {
      ...Type.Partial(FactInputSchema).properties,
      facts: Type.Optional(
        Type.Array(Type.Object({}), {
          minItems: 1,
          maxItems: WRITE_BATCH_MAX,
          description: `Instead of the fields above: up to ${WRITE_BATCH_MAX} facts, each with those fields, stored together`,
        }),
      ),
    },
    { additionalProperties: false },
  ),
)
export type MemoryWriteInput = Static<ReturnType<typeof MemoryWriteInputSchema>>

export const NoInputSchema = lazySchema(() => Type.Object({}, { additionalProperties: false }))

export const RunbookGetInputSchema = lazySchema(() =>
  Type.Object(
    { slug: Type.String({ minLength: 1, maxLength: 80, description: 'The runbook slug, as runbook_list shows it' }) },
    { additionalProperties: false },
  ),
)
export type RunbookGetInput = Static<ReturnType<typeof RunbookGetInputSchema>>

export const ContractValidateInputSchema = lazySchema(() =>
  Type.Object(
    {
      schema: Type.String({ minLength: 1, maxLength: 80, description: 'Contract id, e.g. finding.v1' }),
      data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      path: Type.Optional(
        Type.String({ minLength: 1, maxLength: 1024, description: 'Or a JSON file, relative to the project root' }),
      ),
    },
    { additionalProperties: false },
  ),
)
export type ContractValidateInput = Static<ReturnType<typeof ContractValidateInputSchema>>

export const BlackboardWriteInputSchema = lazySchema(() =>
  Type.Object(
    {
      wave: Type.String({ minLength: 1, maxLength: 80, description: 'Wave id, e.g. analysis' }),
      agent: Type.String({ minLength: 1, maxLength: 80, description: 'Producing agent name' }),
      schema: Type.String({ minLength: 1, maxLength: 80, description: 'Contract id the artifact conforms to' }),
      data: Type.Record(Type.String(), Type.Unknown(), {
        description: 'The artifact: at most 1 MiB as pretty JSON, nested at most 32 deep',
      }),
    },
    { additionalProperties: false },
  ),
)
export type BlackboardWriteInput = Static<ReturnType<typeof BlackboardWriteInputSchema>>

export const BlackboardReadInputSchema = lazySchema(() =>
  Type.Object(
    {
      wave: Type.String({ minLength: 1, maxLength: 80 }),
      agent: Type.Optional(Type.String({ minLength: 1, maxLength: 80, description: 'Restrict to one producer' })),
      full: Type.Optional(
        Type.Boolean({
          description:
            'Whole artifacts: the file dump the context firewall exists to prevent. Only when you genuinely need it',
        }),
      ),
      version: Type.Optional(
        Type.Integer({ minimum: 1, description: 'With agent: this version of its artifact (1 = first written)' }),
      ),
    },
    { additionalProperties: false },
  ),
)
export type BlackboardReadInput = Static<ReturnType<typeof BlackboardReadInputSchema>>

export { SLUG_PATTERN }
