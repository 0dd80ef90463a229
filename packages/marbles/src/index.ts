// @foundry/marbles: the authoring API, what a workspace module imports to declare its workflows,
// steps, agents, schedules and monitors. It loads nothing but these declarations (no engine, no
// project, no MCP server). Embedders open engines through `@foundry/marbles/engine`.

export { workflow, step, type WorkflowOptions, type WorkflowDefinition, type StepDefinitionOptions, type StepDefinition } from './define/workflow.js'
export { agent, type AgentOptions, type AgentDefinition, type ModelRoute } from './define/agent.js'
export { schedule, monitor, duration, type ScheduleOptions, type ScheduleDefinition, type MonitorOptions, type MonitorDefinition } from './define/triggers.js'
export type { RunContext, RunLogger, StepContext, StepOptions } from './define/context.js'
export type { RetryPolicy } from './define/retry.js'
