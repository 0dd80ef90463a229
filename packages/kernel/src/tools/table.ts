import type { Static, TSchema } from 'typebox'
import type { Kernel } from '../kernel.js'
import { FoundryError } from '../errors.js'
import { ForgetInputSchema } from '../schema/fact.js'
import { ReviewInputSchema } from '../schema/proposal.js'
import { lazyObject } from '../schema/lazy.js'
import {
  BlackboardReadInputSchema,
  BlackboardWriteInputSchema,
  ContractValidateInputSchema,
  MemoryWriteInputSchema,
  NoInputSchema,
  RunbookGetInputSchema,
  SearchInputSchema,
} from '../schema/inputs.js'
import type { ToolHints, ToolRow } from './tool-row.js'
import {
  BlackboardReadOutputSchema,
  BlackboardWriteOutputSchema,
  ForgetOutputSchema,
  IndexOutputSchema,
  ReviewOutputSchema,
  RunbookGetOutputSchema,
  RunbookListOutputSchema,
  SearchOutputSchema,
  TokenReportOutputSchema,
  ValidateOutputSchema,
  WriteOutputSchema,
} from './schemas.js'

/** One row of Foundry's kernel tools: a `ToolRow` over the kernel, with its title and output schema. */
export type KernelTool<I extends TSchema = TSchema, O extends TSchema = TSchema, N extends string = string> = ToolRow<
  Kernel,
  I,
  O
> & { name: N; title: string; output: O }

const tool = <I extends TSchema, O extends TSchema, N extends string>(
  definition: KernelTool<I, O, N>,
): KernelTool<I, O, N> => definition
/** A row's input schema built when first read (`tools/list`, or a call's check): a start-up builds none, nor loads TypeBox. */
const lazyInput: <S extends object>(schema: () => S) => S = lazyObject

const READ_ONLY: ToolHints = { readOnlyHint: true, openWorldHint: false }

/**
 * Foundry's kernel calls as tools, one row each: what `foundry mcp` serves and what an AI SDK agent
 * in Marbles gets (a subset, by name). Nine tools in the order agents meet them, then
 * `memory_forget` and `memory_review`. Every tool costs tokens in every session (`foundry tokens`): keep descriptions short.
 */
export const KERNEL_TOOLS = [
  tool({
    name: 'memory_search',
    role: 'read',
    title: 'Search project memory',
    description:
      'Searches project memory and returns only the matching facts. Use this instead of reading files under .foundry/memory/: it is the token-cheap path. ' +
      'Call it before planning, before proposing an architecture, and whenever the user refers to a past decision. A query of fact ids (fact-0012 fact-0031) returns those facts.',
    input: SearchInputSchema,
    output: SearchOutputSchema,
    annotations: READ_ONLY,
    // The facts are the answer: sent once, as text (whole blocks, then one line a weaker hit).
    textOnly: true,
    async call(kernel, input) {
      const { text, query, hits, active, missing, brief, dropped } = await kernel.memory.search(input)
      return {
        text,
        structured: withoutUndefined({
          query,
          hits: hits.map(({ fact, score }) => ({ fact, score })),
          active: hits.length ? undefined : active,
          missing,
          brief,
          dropped,
        }),
      }
    },
  }),
  tool({
    name: 'memory_write',
    role: 'write',
    title: 'Store a fact',
    description:
      'Stores one atomic durable fact: deduplicates against existing facts, assigns the id, maintains supersedes chains and rebuilds the index. ' +
      'Call it when a decision, constraint, convention or risk has just been established. Never write memory files by hand; not for transient session state. ' +
      'title, body and type are required, unless facts gives many facts at once.',
    input: lazyInput(MemoryWriteInputSchema),
    output: WriteOutputSchema,
    annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async call(kernel, { facts, ...single }) {
      if (facts === undefined) {
        const { text, ...structured } = await kernel.memory.write(single)
        return { text, structured }
      }
      const fields = Object.keys(single)
      if (fields.length)
        throw new FoundryError(
          'INVALID_INPUT',
          `Invalid arguments: give facts or one fact's fields, not both (${fields.join(', ')} beside facts); move them into the facts`,
        )
      const { text, results, index, indexStale } = await kernel.memory.writeMany(facts)
      return {
        text,
        structured: {
          facts: results.map(({ text: _text, index: _index, indexStale: _stale, ...one }) => one),
          index,
          ...(indexStale && { indexStale }),
        },
      }
    },
  }),
  tool({
    name: 'memory_index',
    role: 'write',
    title: 'Rebuild the memory index',
    description:
      'Rebuilds .foundry/memory/INDEX.md and reports budget usage. memory_write rebuilds it already: ' +
      'call this after writing or editing facts by other means.',
    input: lazyInput(NoInputSchema),
    output: IndexOutputSchema,
    annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async call(kernel) {
      const { text, path, index } = await kernel.memory.index()
      const { text: _markdown, ...figures } = index
      return { text, structured: { path, index: figures } }
    },
  }),
  tool({
    name: 'runbook_list',
    role: 'read',
    title: 'List runbooks',
    description:
      'Lists runbooks with their trigger conditions. Call it before any recurring or error-prone task: ' +
      'a runbook that exists must be followed rather than improvised.',
    input: lazyInput(NoInputSchema),
    output: RunbookListOutputSchema,
    annotations: READ_ONLY,
    async call(kernel) {
      const { text, runbooks } = await kernel.runbooks.list()
      return { text, structured: { runbooks } }
    },
  }),
  tool({
    name: 'runbook_get',
    role: 'read',
    title: 'Read a runbook',
    description: 'Returns the full markdown of one runbook. Call it when a runbook applies and you need its full text.',
    input: lazyInput(RunbookGetInputSchema),
    output: RunbookGetOutputSchema,
    annotations: READ_ONLY,
    async call(kernel, input) {
      const { text, runbook } = await kernel.runbooks.get(input)
      const { slug, title, trigger } = runbook
      return { text, structured: trigger === undefined ? { slug, title } : { slug, title, trigger } }
    },
  }),
  tool({
    name: 'contract_validate',
    role: 'read',
    title: 'Validate an artifact',
    description:
      'Validates a JSON artifact against a Foundry contract schema and lists the violations. Pass exactly one of `data` or `path`. ' +
      'Call it to check an artifact before or instead of writing it.',
    input: lazyInput(ContractValidateInputSchema),
    output: ValidateOutputSchema,
    annotations: READ_ONLY,
    async call(kernel, input) {
      const { text, ...structured } = await kernel.contracts.validate(input)
      return { text, structured }
    },
  }),
  tool({
    name: 'blackboard_write',
    role: 'write',
    title: 'Hand work to the next wave',
    description:
      'Writes a wave artifact and validates it against its contract in one step; on failure nothing is written. ' +
      'Call it when handing work to the next wave, then return to your caller only the path and a short summary.',
    input: lazyInput(BlackboardWriteInputSchema),
    output: BlackboardWriteOutputSchema,
    // Replaces the same agent's earlier artifact in the wave.
    annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async call(kernel, input) {
      const { text, ...structured } = await kernel.blackboard.write(input)
      return { text, structured, isError: !structured.written }
    },
  }),
  tool({
    name: 'blackboard_read',
    role: 'read',
    title: 'Read a wave',
    description:
      'Reads the artifacts of a wave: metadata and a summary line each. ' +
      'Call it when picking up what a previous wave produced.',
    input: lazyInput(BlackboardReadInputSchema),
    output: BlackboardReadOutputSchema,
    annotations: READ_ONLY,
    async call(kernel, input) {
      const { text, wave, artifacts } = await kernel.blackboard.read(input)
      return { text, structured: { wave, artifacts: artifacts.map(withoutUndefined) } }
    },
  }),
  tool({
    name: 'token_report',
    role: 'read',
    title: 'Token report',
    description:
      'Reports Foundry token accounting for the project, including the recorded gate events. Call it when answering "what is this costing".',
    input: lazyInput(NoInputSchema),
    output: TokenReportOutputSchema,
    annotations: READ_ONLY,
    async call(kernel) {
      const { text, figures } = await kernel.tokens.report()
      return { text, structured: figures }
    },
  }),
  tool({
    name: 'memory_forget',
    role: 'write',
    title: 'Forget a fact',
    description:
      'Forgets a wrong fact: removed from the index and search, kept on disk with the reason. To correct a fact instead, memory_write with supersedes.',
    input: ForgetInputSchema,
    output: ForgetOutputSchema,
    annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
    async call(kernel, input) {
      const { text, id, reason, forgotten } = await kernel.memory.forget(input.id, input.reason)
      return { text, structured: { id, reason, forgotten } }
    },
  }),
  tool({
    name: 'memory_review',
    role: 'write',
    title: 'Review proposed facts',
    description:
      'The queue of facts proposed from sessions: list, or accept (stored as by memory_write), reject or edit one by id. Only when the user asks.',
    input: lazyInput(ReviewInputSchema),
    output: ReviewOutputSchema,
    annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async call(kernel, { action, id, reason, changes }) {
      if (action === 'list') {
        const { text, proposals } = await kernel.review.list()
        return { text, structured: { proposals } }
      }
      if (id === undefined)
        throw new FoundryError(
          'INVALID_INPUT',
          `Invalid arguments: ${action} needs id, the proposal's (proposal-NNNN, as list shows it)`,
        )
      if (action === 'accept') {
        const { text, index: _index, ...written } = await kernel.review.accept(id)
        return { text, structured: written }
      }
      const { text, proposal } =
        action === 'reject' ? await kernel.review.reject(id, reason) : await kernel.review.edit(id, changes ?? {})
      return { text, structured: { proposals: [proposal] } }
    },
  }),
]

export type ToolName = (typeof KERNEL_TOOLS)[number]['name']
/** The `structuredContent` of the named tool. */
export type ToolOutput<N extends ToolName> = Static<Extract<(typeof KERNEL_TOOLS)[number], { name: N }>['output']>

/** Keys whose value is `undefined` dropped: structured content is JSON, where a key is present or absent. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
}
