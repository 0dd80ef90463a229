import type { ToolResult, ToolRow } from '@foundry/kernel/tools'
import type { TSchema } from 'typebox'
import type { AgentDispatch } from '../agents/agent-run.js'
import type { MarblesHost } from './host.js'
import {
  DispatchAgentInput,
  DispatchOutput,
  DispatchWorkflowInput,
  GetRunInput,
  ListConfigOutput,
  NoInput,
  RunIdInput,
  RunOutput,
  SignalRunInput,
} from './schemas.js'

/** One row of the tool table: a name, its schemas (as `tools/list` publishes them), its role, one host call. */
export type MarblesTool = ToolRow<MarblesHost>

const tool = <I extends TSchema, O extends TSchema>(row: ToolRow<MarblesHost, I, O>): ToolRow<MarblesHost, I, O> => row

/** A host's answer as a tool result: the JSON is the text, and the structured content. */
const answer = async <T extends object>(result: Promise<T> | T): Promise<ToolResult<T>> => {
  const structured = await result
  return { text: JSON.stringify(structured), structured }
}

/** The five tools of the reference page, in its order, then signal_run. Dispatches are acknowledgements: run fields only. */
export const TOOLS: readonly MarblesTool[] = [
  tool({
    name: 'list_config',
    role: 'read',
    title: 'List the Marbles workspace',
    description:
      'The loaded workspace: source path, root, workflows and steps with input schemas, agents and their model routes, schedules, monitors, and the providers offered.',
    input: NoInput,
    output: ListConfigOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    call: async (host) => answer(host.listConfig()),
  }),
  tool({
    name: 'dispatch_workflow',
    role: 'run',
    title: 'Start a workflow',
    description:
      'Starts a named workflow or step and returns its runId at once (never its output): read it with get_run, or `marbles watch <runId>`.',
    input: DispatchWorkflowInput,
    output: DispatchOutput,
    annotations: { openWorldHint: true },
    call: (host, input) => answer(host.dispatchWorkflow(input.name, input.input ?? {}, input.idempotencyKey)),
  }),
  tool({
    name: 'dispatch_agent',
    role: 'run',
    title: 'Start an agent',
    description:
      'Starts agent work (a declared agent, or ad hoc) and returns its runId and session at once. The prompt starts with the project memory index; an answer over the handoff budget is saved as a handoff.v1 artifact. Continue a conversation by passing its session once its run has finished.',
    input: DispatchAgentInput,
    output: DispatchOutput,
    annotations: { openWorldHint: true },
    call: (host, { idempotencyKey, ...input }) =>
      answer(host.dispatchAgent(input as unknown as AgentDispatch, idempotencyKey)),
  }),
  tool({
    name: 'get_run',
    role: 'read',
    title: 'Read a run',
    description:
      "A run's status; once completed its output (a workflow) or its answer, session and usage (an agent), or its error. Large text comes in pages: pass nextCursor as cursor.",
    input: GetRunInput,
    output: RunOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    call: (host, input) =>
      answer(host.getRun(input.runId, input.cursor === undefined ? undefined : Number(input.cursor))),
  }),
  tool({
    name: 'cancel_run',
    role: 'run',
    title: 'Cancel a run',
    description: 'Requests cancellation of a run this server launched and returns its status then.',
    input: RunIdInput,
    output: RunOutput,
    annotations: { destructiveHint: true, idempotentHint: true, openWorldHint: false },
    call: (host, input) => answer(host.cancelRun(input.runId)),
  }),
  tool({
    name: 'signal_run',
    role: 'run',
    title: 'Signal a waiting run',
    description: 'Sends the signal a run is waiting for (get_run status waiting) and returns the run.',
    input: SignalRunInput,
    output: RunOutput,
    annotations: { openWorldHint: false },
    call: (host, input) => answer(host.signalRun(input.runId, input.name, input.data)),
  }),
]
