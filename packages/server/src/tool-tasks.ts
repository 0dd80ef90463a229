import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js'
import type { CallToolResult, CreateTaskResult, Task } from '@modelcontextprotocol/sdk/types.js'

/**
 * MCP Tasks for the tools of a table that start long work and answer at once (a dispatch): a
 * task-augmented `tools/call` of one of them runs the call as usual, then answers with the task its
 * result started; `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` are the SDK's own
 * handlers over `store`. The plain call keeps working.
 */
export interface ToolTasks<C> {
  /** The tools that accept a task-augmented call (`tools/list` marks them `execution.taskSupport: optional`). */
  tools: readonly string[]
  /**
   * What the task methods read and change. Called with the session of the request (undefined on stdio):
   * a task is visible only to the session that created it.
   */
  store: TaskStore
  /** After a task-augmented call of one of `tools` succeeded: the task its result started. */
  created(ctx: C, tool: string, result: CallToolResult, sessionId: string | undefined): Promise<Task>
}

/** The capability a server with tasks declares: tools/call may be task-augmented; tasks can be listed and cancelled. */
export const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } }

/**
 * Answer a task-augmented `tools/call`: a tool outside `tasks.tools` is refused before it runs, and
 * a call that fails is refused with its message (a JSON-RPC error: there is no task to poll).
 */
export async function callAsTask<C>(
  tasks: ToolTasks<C> | undefined,
  name: string,
  call: () => Promise<CallToolResult>,
  context: () => Promise<C>,
  sessionId: string | undefined,
): Promise<CreateTaskResult> {
  if (!tasks?.tools.includes(name))
    throw new TaskCallError(
      `${name} does not run as a task${tasks ? ` (${tasks.tools.join(', ')} do)` : ''}; call it without task`,
    )
  const result = await call()
  if (result.isError)
    throw new TaskCallError(String((result.content[0] as { text?: string } | undefined)?.text ?? `${name} failed`))
  return { task: await tasks.created(await context(), name, result, sessionId) }
}

/** A refused task-augmented call: JSON-RPC error -32602 (invalid params), its message as written. */
export class TaskCallError extends Error {
  readonly code = -32602
}
