// @foundry/marbles: the authoring API, what a workspace module imports to declare its workflows,
// steps, agents, schedules and monitors. It loads nothing but these declarations (no engine, no
// project, no MCP server). Embedders open engines through `@foundry/marbles/engine`. A definition's
// type is its function's (`ReturnType<typeof workflow>`), and so is an options type
// (`Parameters<typeof workflow>[0]`); what a body receives is named, for the helpers it calls.

export { workflow, step } from './define/workflow.js'
export { agent } from './define/agent.js'
export { schedule, monitor, duration } from './define/triggers.js'
export type { RunContext, StepContext } from './define/context.js'
