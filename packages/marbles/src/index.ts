// @foundry/marbles: the authoring API, what a workspace module imports to declare its workflows,
// steps, agents, schedules and monitors. It loads nothing but these declarations (no engine, no
// project, no MCP server). Embedders open engines through `@foundry/marbles/engine`. A definition's
// type is its function's (`ReturnType<typeof workflow>`).

export { workflow, step, type WorkflowOptions } from './define/workflow.js'
export { agent, type AgentOptions } from './define/agent.js'
export { schedule, monitor, duration, type ScheduleOptions, type MonitorOptions } from './define/triggers.js'
export type { RunContext, StepContext, StepOptions, WaitOptions } from './define/context.js'
export type { RetryPolicy } from './define/retry.js'
