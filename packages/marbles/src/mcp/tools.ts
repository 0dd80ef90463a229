import { validator, type Validator } from '@foundry/kernel'
import type { PublishableTool } from '@foundry/mcp'
import type { AgentDispatch } from '../agents/agent-run.js'
import type { MarblesHost } from './host.js'
import { DispatchAgentInput, DispatchOutput, DispatchWorkflowInput, GetRunInput, ListConfigOutput, NoInput, RunIdInput, RunOutput } from './schemas.js'

/** One row of the tool table: a name, its schemas (as `tools/list` publishes them), one host call. */
export interface MarblesTool extends PublishableTool {
  /** `input` has passed `inputSchema`; a throw becomes a tool error `<name> failed: <message>`. */
  call(host: MarblesHost, input: Record<string, unknown>): Promise<unknown>
}

/** The five tools of seed 003, in its order. Dispatches are acknowledgements: run fields only. */
export const TOOLS: MarblesTool[] = [
  {
    name: 'list_config',
    title: 'List the Marbles workspace',
    description: 'The loaded workspace: source path, root, workflows and steps with input schemas, agents and their model routes, schedules, monitors, and the providers offered.',
    inputSchema: NoInput,
    outputSchema: ListConfigOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    call: async (host) => host.listConfig(),
  },
  {
    name: 'dispatch_workflow',
    title: 'Start a workflow',
    description: 'Starts a named workflow or step and returns its runId at once (never its output): read it with get_run, or `marbles watch <runId>`.',
    inputSchema: DispatchWorkflowInput,
    outputSchema: DispatchOutput,
    annotations: { readOnlyHint: false, openWorldHint: true },
    call: (host, input) => host.dispatchWorkflow(input.name as string, input.input ?? {}),
  },
  {
    name: 'dispatch_agent',
    title: 'Start an agent',
    description:
      'Starts agent work (a declared agent, or ad hoc) and returns its runId and session at once. The prompt starts with the project memory index; an answer over the handoff budget is saved as a handoff.v1 artifact. Continue a conversation by passing its session once its run has finished.',
    inputSchema: DispatchAgentInput,
    outputSchema: DispatchOutput,
    annotations: { readOnlyHint: false, openWorldHint: true },
    call: (host, input) => host.dispatchAgent(input as unknown as AgentDispatch),
  },
  {
    name: 'get_run',
    title: 'Read a run',
    description: "A run's status; once completed its output (a workflow) or its answer, session and usage (an agent), or its error. Large text comes in pages: pass nextCursor as cursor.",
    inputSchema: GetRunInput,
    outputSchema: RunOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    call: (host, input) => host.getRun(input.runId as string, input.cursor === undefined ? undefined : Number(input.cursor)),
  },
  {
    name: 'cancel_run',
    title: 'Cancel a run',
    description: 'Requests cancellation of a run this server launched and returns its status then.',
    inputSchema: RunIdInput,
    outputSchema: RunOutput,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    call: (host, input) => host.cancelRun(input.runId as string),
  },
]

const byName = new Map(TOOLS.map((t) => [t.name, t]))
const inputs = new Map<string, Validator<Record<string, unknown>>>()

/** `tools/call`: every failure is a tool error naming the field, never a JSON-RPC error. */
export async function callTool(host: MarblesHost, name: string, args: Record<string, unknown> | undefined) {
  const tool = byName.get(name)
  if (!tool) return failure(`Unknown tool "${name}". Available: ${TOOLS.map((t) => t.name).join(', ')}.`)
  try {
    let check = inputs.get(name)
    if (!check) inputs.set(name, (check = validator(tool.inputSchema) as Validator<Record<string, unknown>>))
    const result = (await tool.call(host, check.parse(args ?? {}, 'arguments'))) as Record<string, unknown>
    return { content: [{ type: 'text' as const, text: JSON.stringify(result) }], structuredContent: result }
  } catch (error) {
    return failure(`${name} failed: ${(error as Error).message.split('\n')[0]}`)
  }
}

function failure(text: string) {
  return { content: [{ type: 'text' as const, text }], isError: true }
}
