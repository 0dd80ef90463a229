import { Type, type Static } from 'typebox'
import { RUN_ID_PATTERN } from '../engine/ids.js'

/** Statuses as MCP spells them: the engine's `complete` is `completed`; `waiting` is suspended on `ctx.waitFor`. */
export const McpStatusSchema = Type.Enum([
  'queued',
  'running',
  'suspended',
  'waiting',
  'completed',
  'failed',
  'cancelled',
])
export type McpStatus = Static<typeof McpStatusSchema>

const RUN_ID = Type.String({ pattern: RUN_ID_PATTERN.source, description: 'A run id a dispatch returned' })
const Session = Type.Object(
  { id: Type.String({ minLength: 1 }), model: Type.String({ minLength: 1 }), provider: Type.String({ minLength: 1 }) },
  {
    additionalProperties: false,
    description: 'A session reference from an earlier agent run, to continue its conversation',
  },
)
const Kind = Type.Enum(['workflow', 'step', 'agent'])
const IdempotencyKey = Type.Optional(
  Type.String({ minLength: 1, maxLength: 200, description: 'Same key within 24 h: the same run, no second one' }),
)
const RunError = Type.Object({ name: Type.String(), message: Type.String() })
const Usage = Type.Object({
  inputTokens: Type.Integer(),
  outputTokens: Type.Integer(),
  cacheReadTokens: Type.Optional(Type.Integer()),
  cacheWriteTokens: Type.Optional(Type.Integer()),
  costUsd: Type.Optional(Type.Number()),
})

export const NoInput = Type.Object({}, { additionalProperties: false })

export const DispatchWorkflowInput = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'A workflow or step name from list_config' }),
    input: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: "The input, matching the definition's input schema" }),
    ),
    idempotencyKey: IdempotencyKey,
  },
  { additionalProperties: false },
)

export const DispatchAgentInput = Type.Object(
  {
    prompt: Type.String({ minLength: 1, description: 'The task' }),
    agent: Type.Optional(
      Type.String({ minLength: 1, description: 'A declared agent id from list_config; omit for an ad hoc agent' }),
    ),
    instructions: Type.Optional(
      Type.String({ description: "Instructions for an ad hoc agent, or appended to a declared agent's" }),
    ),
    model: Type.Optional(Type.String({ minLength: 1 })),
    provider: Type.Optional(Type.String({ minLength: 1, description: 'claude-code, codex, pi, anthropic, mock' })),
    cwd: Type.Optional(
      Type.String({ minLength: 1, description: 'Working folder, relative to the workspace root and inside it' }),
    ),
    maxTurns: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Model/tool step limit (claude-code: at most 100; codex and pi reject it)',
      }),
    ),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
    compaction: Type.Optional(
      Type.Boolean({ description: 'Auto-compaction on/off where the provider has a setting (list_config)' }),
    ),
    session: Type.Optional(Session),
    contract: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'An output contract (review.v1, finding.v1, or the project’s): the answer must be JSON valid against it',
      }),
    ),
    idempotencyKey: IdempotencyKey,
  },
  { additionalProperties: false },
)

export const RunIdInput = Type.Object({ runId: RUN_ID }, { additionalProperties: false })
export const SignalRunInput = Type.Object(
  {
    runId: RUN_ID,
    name: Type.String({ minLength: 1, description: 'The signal the run is waiting for' }),
    data: Type.Optional(Type.Unknown({ description: "JSON matching the wait's schema" })),
  },
  { additionalProperties: false },
)
export const GetRunInput = Type.Object(
  {
    runId: RUN_ID,
    cursor: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'nextCursor of the previous page' })),
  },
  { additionalProperties: false },
)

const Definition = Type.Object({
  name: Type.String(),
  kind: Type.Enum(['workflow', 'step']),
  description: Type.Optional(Type.String()),
  inputSchema: Type.Unknown(),
})
export const ListConfigOutput = Type.Object({
  source: Type.String(),
  root: Type.String(),
  definitions: Type.Array(Definition),
  agents: Type.Array(
    Type.Object({
      id: Type.String(),
      description: Type.Optional(Type.String()),
      model: Type.Optional(Type.Object({ provider: Type.String(), model: Type.String() })),
    }),
  ),
  schedules: Type.Array(Type.Object({ name: Type.String(), workflow: Type.String(), when: Type.String() })),
  monitors: Type.Array(Type.Object({ name: Type.String(), workflow: Type.String(), everyMs: Type.Integer() })),
  providers: Type.Array(Type.String(), { description: 'Harnesses this server offers' }),
  compaction: Type.Record(Type.String(), Type.String(), {
    description: "Per provider, the setting a dispatch's compaction goes to, or 'none' (ignored)",
  }),
})

export const DispatchOutput = Type.Object({
  runId: Type.String(),
  kind: Kind,
  name: Type.String(),
  status: McpStatusSchema,
  session: Type.Optional(Session),
})

export const RunOutput = Type.Object({
  runId: Type.String(),
  kind: Kind,
  name: Type.String(),
  status: McpStatusSchema,
  cancelRequested: Type.Optional(Type.Boolean()),
  waitingFor: Type.Optional(
    Type.Object({ signal: Type.String(), until: Type.Optional(Type.Integer({ description: 'Deadline, epoch ms' })) }),
  ),
  rerunOf: Type.Optional(Type.String()),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
  reason: Type.Optional(Type.String()),
  error: Type.Optional(RunError),
  output: Type.Optional(Type.Unknown({ description: 'A workflow’s output, when it fits one page' })),
  outputText: Type.Optional(Type.String({ description: 'A page of a large output’s JSON; nextCursor reads on' })),
  text: Type.Optional(Type.String({ description: 'The agent’s answer (a page of it when nextCursor is present)' })),
  summary: Type.Optional(
    Type.String({ description: 'An answer over the handoff budget: its head; the whole answer is in artifact' }),
  ),
  artifact: Type.Optional(Type.String({ description: 'The artifact holding the whole answer or output' })),
  tokens: Type.Optional(Type.Integer({ description: 'Estimated tokens of the whole answer' })),
  data: Type.Optional(Type.Unknown({ description: 'The answer as JSON, valid against contract' })),
  contract: Type.Optional(Type.String()),
  session: Type.Optional(Session),
  usage: Type.Optional(Usage),
  turns: Type.Optional(Type.Integer()),
  nextCursor: Type.Optional(Type.String({ description: 'Pass as cursor for the next page' })),
  totalChars: Type.Optional(Type.Integer({ description: 'Characters of the paged text in all' })),
})

export type DispatchResultOut = Static<typeof DispatchOutput>
export type RunResultOut = Static<typeof RunOutput>
export type ListConfigResult = Static<typeof ListConfigOutput>
