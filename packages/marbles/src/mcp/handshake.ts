import { initializeAnswer } from '@foundry/server/stdio'
import pkg from '../../package.json' with { type: 'json' }

// What `marbles mcp` answers to `initialize`, apart from the SDK: the stdio server answers it before the
// SDK's Server, the workspace, the state and the engine load (server.ts builds the Server from the same values).

export const INSTRUCTIONS =
  'Marbles runs this workspace’s workflows and agents. Dispatch returns a runId at once; read it with get_run (or `marbles watch <runId>`), cancel it with cancel_run. list_config names what can run.'

export const SERVER_INFO = { name: 'marbles', title: 'Marbles', version: pkg.version }

/** As the Server declares them: tools, and tasks for the two dispatches (`TASKS_CAPABILITY` of @foundry/server). */
export const CAPABILITIES = { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }

export const initializeResult = initializeAnswer({ info: SERVER_INFO, capabilities: CAPABILITIES, instructions: INSTRUCTIONS })
