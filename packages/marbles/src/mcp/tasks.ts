import type { ToolTasks } from '@foundry/server'
import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js'
import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js'
import type { MarblesHost } from './host.js'
import type { McpStatus, RunResultOut } from './schemas.js'

/** How often a client is asked to poll `tasks/get` (and the SDK's `tasks/result` checks the run). */
export const TASK_POLL_MS = 200

const TASK_STATUS: Record<McpStatus, Task['status']> = {
  queued: 'working',
  running: 'working',
  suspended: 'working',
  waiting: 'working',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
}

/**
 * MCP Tasks over Marbles runs, for one server (one client session): a task-augmented
 * `dispatch_workflow` or `dispatch_agent` dispatches as usual and its task is the run (task id = run
 * id). `tasks/get` is the run's status (queued, running, suspended and waiting for a signal are `working`; an error is the
 * status message); `tasks/result` waits for the run to settle and answers what `get_run` answers
 * then (`isError` when it failed or was cancelled); `tasks/cancel` is `cancel_run`; `tasks/list`
 * lists this session's tasks. Results live as long as their runs (`ttl: null`).
 */
export function runTasks(host: () => Promise<MarblesHost>): ToolTasks<MarblesHost> {
  /** Run id → the session that created the task (undefined on stdio). */
  const owners = new Map<string, string | undefined>()
  const mine = (taskId: string, sessionId: string | undefined) => owners.has(taskId) && owners.get(taskId) === sessionId

  const taskOf = (run: RunResultOut): Task => ({
    taskId: run.runId,
    status: TASK_STATUS[run.status],
    ttl: null,
    createdAt: new Date(run.createdAt).toISOString(),
    lastUpdatedAt: new Date(run.updatedAt).toISOString(),
    pollInterval: TASK_POLL_MS,
    ...(run.error && { statusMessage: run.error.message }),
  })
  const read = async (runId: string) => (await host()).getRun(runId)

  const store: TaskStore = {
    async createTask() {
      throw new Error('a Marbles task starts with a task-augmented dispatch_workflow or dispatch_agent')
    },
    getTask: async (taskId, sessionId) => (mine(taskId, sessionId) ? taskOf(await read(taskId)) : null),
    // A task's result is its run's output, kept in the run's journal: nothing is stored apart.
    async storeTaskResult() {},
    async getTaskResult(taskId, sessionId) {
      if (!mine(taskId, sessionId)) throw new Error(`Task not found: ${taskId}`)
      const run = await read(taskId)
      const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(run) }], structuredContent: run }
      return run.status === 'failed' || run.status === 'cancelled' ? { ...result, isError: true } : result
    },
    async updateTaskStatus(taskId, status, _message, sessionId) {
      if (status === 'cancelled' && mine(taskId, sessionId)) await (await host()).cancelRun(taskId)
    },
    async listTasks(_cursor, sessionId) {
      const ids = [...owners].filter(([, owner]) => owner === sessionId).map(([runId]) => runId)
      return { tasks: await Promise.all(ids.map(async (runId) => taskOf(await read(runId)))) }
    },
  }

  return {
    tools: ['dispatch_workflow', 'dispatch_agent'],
    store,
    async created(open, _tool, result, sessionId) {
      const { runId } = result.structuredContent as { runId: string }
      owners.set(runId, sessionId)
      return taskOf(await open.getRun(runId))
    },
  }
}
