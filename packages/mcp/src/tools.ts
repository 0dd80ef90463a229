import {
  BlackboardReadInputSchema,
  BlackboardWriteInputSchema,
  ContractValidateInputSchema,
  FactInputSchema,
  ForgetInputSchema,
  NoInputSchema,
  RunbookGetInputSchema,
  SearchInputSchema,
  type Kernel,
} from '@foundry/kernel'
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import type { Static, TSchema } from 'typebox'
import {
  BlackboardReadOutputSchema,
  BlackboardWriteOutputSchema,
  ForgetOutputSchema,
  IndexOutputSchema,
  RunbookGetOutputSchema,
  RunbookListOutputSchema,
  SearchOutputSchema,
  TokenReportOutputSchema,
  ValidateOutputSchema,
  WriteOutputSchema,
} from './output-schemas.js'

/** What a tool returns: the seed's text for the model, and the same result as data. */
export interface ToolResult<S = unknown> {
  text: string
  /** Matches the tool's `outputSchema`. */
  structured: S
  /** The call did not do what was asked, though nothing threw (a blackboard write its contract rejected). */
  isError?: boolean
}

/** One row of the tool table. The server publishes the schemas as they are: they are JSON Schema. */
export interface FoundryTool<O extends TSchema = TSchema, N extends string = string> {
  name: N
  title: string
  /** The seed's purpose of the tool and its "Call it when". */
  description: string
  inputSchema: TSchema
  /** What `structured` holds: the tool's `structuredContent` and `foundry <command> --json`, or only the latter with `textOnly`. */
  outputSchema: O
  annotations: ToolAnnotations
  /** See `PublishableTool.textOnly`: memory_search's text is the answer, and the only thing sent. */
  textOnly?: boolean
  /** One kernel call. `input` has passed `inputSchema`; a throw becomes `<name> failed: <message>`. */
  call(kernel: Kernel, input: Record<string, unknown>): Promise<ToolResult<Static<O>>>
}

const tool = <O extends TSchema, N extends string>(definition: FoundryTool<O, N>): FoundryTool<O, N> => definition
const READ_ONLY: ToolAnnotations = { readOnlyHint: true, openWorldHint: false }

/** The nine tools of seed 000, in the seed's order, then `memory_forget`. Every tool costs tokens in every session (`foundry tokens`): keep descriptions short. */
export const TOOLS = [
  tool({
    name: 'memory_search',
    title: 'Search project memory',
    description:
      'Searches project memory and returns only the matching facts. Use this instead of reading files under .foundry/memory/: it is the token-cheap path. ' +
      'Call it before planning, before proposing an architecture, and whenever the user refers to a past decision. A query of fact ids (fact-0012 fact-0031) returns those facts.',
    inputSchema: SearchInputSchema,
    outputSchema: SearchOutputSchema,
    annotations: READ_ONLY,
    // The facts are the answer: sent once, as the seed's text (whole blocks, then one line a weaker hit).
    textOnly: true,
    async call(kernel, input) {
      const { text, query, hits, active, missing, brief, dropped } = await kernel.memory.search(input)
      return { text, structured: withoutUndefined({ query, hits: hits.map(({ fact, score }) => ({ fact, score })), active: hits.length ? undefined : active, missing, brief, dropped }) }
    },
  }),
  tool({
    name: 'memory_write',
    title: 'Store a fact',
    description:
      'Stores one atomic durable fact: deduplicates against existing facts, assigns the id, maintains supersedes chains and rebuilds the index. ' +
      'Call it when a decision, constraint, convention or risk has just been established. Never write memory files by hand; not for transient session state.',
    inputSchema: FactInputSchema,
    outputSchema: WriteOutputSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async call(kernel, input) {
      const { text, ...structured } = await kernel.memory.write(input)
      return { text, structured }
    },
  }),
  tool({
    name: 'memory_index',
    title: 'Rebuild the memory index',
    description:
      'Rebuilds .foundry/memory/INDEX.md and reports budget usage. memory_write rebuilds it already: ' +
      'call this after writing or editing facts by other means.',
    inputSchema: NoInputSchema,
    outputSchema: IndexOutputSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async call(kernel) {
      const { text, path, index } = await kernel.memory.index()
      const { text: _markdown, ...figures } = index
      return { text, structured: { path, index: figures } }
    },
  }),
  tool({
    name: 'runbook_list',
    title: 'List runbooks',
    description:
      'Lists runbooks with their trigger conditions. Call it before any recurring or error-prone task: ' +
      'a runbook that exists must be followed rather than improvised.',
    inputSchema: NoInputSchema,
    outputSchema: RunbookListOutputSchema,
    annotations: READ_ONLY,
    async call(kernel) {
      const { text, runbooks } = await kernel.runbooks.list()
      return { text, structured: { runbooks } }
    },
  }),
  tool({
    name: 'runbook_get',
    title: 'Read a runbook',
    description: 'Returns the full markdown of one runbook. Call it when a runbook applies and you need its full text.',
    inputSchema: RunbookGetInputSchema,
    outputSchema: RunbookGetOutputSchema,
    annotations: READ_ONLY,
    async call(kernel, input) {
      const { text, runbook } = await kernel.runbooks.get(input)
      const { slug, title, trigger } = runbook
      return { text, structured: trigger === undefined ? { slug, title } : { slug, title, trigger } }
    },
  }),
  tool({
    name: 'contract_validate',
    title: 'Validate an artifact',
    description:
      'Validates a JSON artifact against a Foundry contract schema and lists the violations. Pass exactly one of `data` or `path`. ' +
      'Call it to check an artifact before or instead of writing it.',
    inputSchema: ContractValidateInputSchema,
    outputSchema: ValidateOutputSchema,
    annotations: READ_ONLY,
    async call(kernel, input) {
      const { text, ...structured } = await kernel.contracts.validate(input)
      return { text, structured }
    },
  }),
  tool({
    name: 'blackboard_write',
    title: 'Hand work to the next wave',
    description:
      'Writes a wave artifact and validates it against its contract in one step; on failure nothing is written. ' +
      'Call it when handing work to the next wave, then return to your caller only the path and a short summary.',
    inputSchema: BlackboardWriteInputSchema,
    outputSchema: BlackboardWriteOutputSchema,
    // Replaces the same agent's earlier artifact in the wave.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async call(kernel, input) {
      const { text, ...structured } = await kernel.blackboard.write(input)
      return { text, structured, isError: !structured.written }
    },
  }),
  tool({
    name: 'blackboard_read',
    title: 'Read a wave',
    description:
      'Reads the artifacts of a wave: metadata and a summary line each. `full: true` returns whole artifacts, the file dump the context firewall exists to prevent: pass it deliberately. ' +
      'Call it when picking up what a previous wave produced.',
    inputSchema: BlackboardReadInputSchema,
    outputSchema: BlackboardReadOutputSchema,
    annotations: READ_ONLY,
    async call(kernel, input) {
      const { text, wave, artifacts } = await kernel.blackboard.read(input)
      return { text, structured: { wave, artifacts: artifacts.map(withoutUndefined) } }
    },
  }),
  tool({
    name: 'token_report',
    title: 'Token report',
    description: 'Reports Foundry token accounting for the project, including the recorded gate events. Call it when answering "what is this costing".',
    inputSchema: NoInputSchema,
    outputSchema: TokenReportOutputSchema,
    annotations: READ_ONLY,
    async call(kernel) {
      const { text, figures } = await kernel.tokens.report()
      return { text, structured: figures }
    },
  }),
  tool({
    name: 'memory_forget',
    title: 'Forget a fact',
    description: 'Forgets a wrong fact: removed from the index and search, kept on disk with the reason. To correct a fact instead, memory_write with supersedes.',
    inputSchema: ForgetInputSchema,
    outputSchema: ForgetOutputSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    async call(kernel, input) {
      const { text, id, reason, forgotten } = await kernel.memory.forget(input.id as string, input.reason as string)
      return { text, structured: { id, reason, forgotten } }
    },
  }),
]

export type ToolName = (typeof TOOLS)[number]['name']
/** The `structuredContent` of the named tool. */
export type ToolOutput<N extends ToolName> = Static<Extract<(typeof TOOLS)[number], { name: N }>['outputSchema']>

/** Keys whose value is `undefined` dropped: structured content is JSON, where a key is present or absent. */
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
}
