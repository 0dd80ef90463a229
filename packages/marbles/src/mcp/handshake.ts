import { initializeAnswer, TASKS_CAPABILITY } from '@foundry/server/stdio'
import pkg from '../../package.json' with { type: 'json' }

// What `marbles mcp` answers to `initialize`, apart from the SDK: the stdio server answers it before the
// SDK's Server, the workspace, the state and the engine load (server.ts builds the Server from the same values).

export const INSTRUCTIONS =
  'Marbles runs this workspace’s workflows and agents. Dispatch returns a runId at once; read it with get_run (or `marbles watch <runId>`), cancel it with cancel_run. list_config names what can run.'

export const SERVER_INFO = { name: 'marbles', title: 'Marbles', version: pkg.version }

/** As the Server declares them (server.ts): tools, and tasks for the two dispatches. */
export const initializeResult = initializeAnswer({
  info: SERVER_INFO,
  capabilities: { tools: {}, tasks: TASKS_CAPABILITY },
  instructions: INSTRUCTIONS,
})
