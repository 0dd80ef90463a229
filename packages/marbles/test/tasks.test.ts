// MCP Tasks: task-augmented dispatches through the SDK's own client, polled, read and cancelled with the task methods.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { AGENTS, connectMcp, newProject, until } from './helpers.js'

test('dispatch_workflow and dispatch_agent as tasks: created at once, polled with tasks/get, read with tasks/result, cancelled with tasks/cancel; the plain tools keep working', async () => {
  const root = await newProject('fs')
  const mcp = await connectMcp(['--root', root, '--source', AGENTS])
  const tasks = mcp.client.experimental.tasks
  try {
    const { tools } = await mcp.client.listTools()
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]))
    assert.equal(support, {
      list_config: undefined,
      dispatch_workflow: 'optional',
      dispatch_agent: 'optional',
      get_run: undefined,
      cancel_run: undefined,
      signal_run: undefined,
    })
    assert.ok(
      mcp.client.getServerCapabilities()?.tasks?.requests?.tools?.call,
      'the server declares task-augmented tools/call',
    )

    // The whole stream: taskCreated, taskStatus until terminal, then the result (get_run's answer).
    const seen: string[] = []
    let result: Record<string, any> | undefined
    for await (const message of tasks.callToolStream(
      { name: 'dispatch_workflow', arguments: { name: 'hello', input: { who: 'ada' } } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      seen.push(message.type)
      if (message.type === 'taskCreated') assert.match(message.task.taskId, /^run-/)
      if (message.type === 'result') result = message.result
      if (message.type === 'error') throw message.error
    }
    assert.is(seen[0], 'taskCreated')
    assert.is(seen.at(-1), 'result')
    assert.is(result?.structuredContent.status, 'completed')
    assert.equal(result?.structuredContent.output, { greeting: 'hello ada' })

    // An agent as a task; tasks/result waits for it to settle.
    const created = await mcp.client.request(
      {
        method: 'tools/call',
        params: { name: 'dispatch_agent', arguments: { prompt: 'Review. [delay-ms:300]' }, task: { ttl: 60_000 } },
      },
      CreateTaskResultSchema,
    )
    const agentTask = created.task.taskId
    assert.is(created.task.status, 'working')
    assert.is(created.task.ttl, null, 'kept as long as the run')
    const answer = await tasks.getTaskResult(agentTask, CallToolResultSchema)
    assert.is((answer.structuredContent as Record<string, unknown>).text, 'Done: the task is complete.')
    assert.is((await tasks.getTask(agentTask)).status, 'completed')
    const viaGetRun = await mcp.call('get_run', { runId: agentTask })
    assert.is(viaGetRun.data.status, 'completed', 'the task is the run: get_run reads it too')

    // Cancellation through the task method reaches the run.
    const waiting = (
      await mcp.client.request(
        { method: 'tools/call', params: { name: 'dispatch_workflow', arguments: { name: 'waits' }, task: {} } },
        CreateTaskResultSchema,
      )
    ).task
    await until(
      async () => (await mcp.call('get_run', { runId: waiting.taskId })).data.status === 'running',
      10_000,
      'running',
    )
    const cancelled = await tasks.cancelTask(waiting.taskId)
    assert.is(cancelled.status, 'cancelled')
    assert.is((await mcp.call('get_run', { runId: waiting.taskId })).data.status, 'cancelled')
    const failed = await tasks.getTaskResult(waiting.taskId, CallToolResultSchema)
    assert.is(failed.isError, true, 'a cancelled run’s result is an error result')
    assert.equal(
      (await tasks.listTasks()).tasks.map((t) => t.taskId).sort(),
      [agentTask, waiting.taskId, result!.structuredContent.runId].sort(),
    )

    // Refusals: a bad dispatch names its field; get_run is no task; an unknown task is not found.
    const refused = async (name: string, args: Record<string, unknown>) => {
      try {
        await mcp.client.request(
          { method: 'tools/call', params: { name, arguments: args, task: {} } },
          CreateTaskResultSchema,
        )
      } catch (error) {
        return (error as Error).message
      }
      throw new Error(`${name} as a task was accepted`)
    }
    assert.match(
      await refused('dispatch_workflow', { name: 'nope' }),
      /name: no workflow or step "nope"; known: big, hello, waits/,
    )
    assert.match(
      await refused('get_run', { runId: waiting.taskId }),
      /get_run does not run as a task \(dispatch_workflow, dispatch_agent do\); call it without task/,
    )
    try {
      await tasks.getTask('run-00000000000000000000000000')
      assert.unreachable('an unknown task')
    } catch (error) {
      assert.match((error as Error).message, /not found/i)
    }

    // The plain tools are unchanged: an acknowledgement.
    const ack = await mcp.call('dispatch_workflow', { name: 'hello', input: { who: 'bo' } })
    assert.equal(Object.keys(ack.data).sort(), ['kind', 'name', 'runId', 'status'])
  } finally {
    await mcp.client.close()
  }
})

test.run()
