// @foundry/marbles: workflows declared in TypeScript, run by an engine that journals every run in
// the project's storage, and watched from any process. Every public name is listed here.

// Authoring: what workspace modules declare.
export { workflow, step, type WorkflowOptions, type WorkflowDefinition, type StepDefinitionOptions, type StepDefinition } from './define/workflow.js'
export { agent, type AgentOptions, type AgentDefinition, type ModelRoute } from './define/agent.js'
export { schedule, monitor, duration, type ScheduleOptions, type ScheduleDefinition, type MonitorOptions, type MonitorDefinition } from './define/triggers.js'
export type { RunContext, RunLogger, StepContext, StepOptions } from './define/context.js'
export type { RetryPolicy } from './define/retry.js'
export { defineWorkspace, collectDefinitions, type Definitions, type Definition, type Runnable } from './define/registry.js'

// The engine: dispatch, cancel, status, reconciliation, the lease.
export { openEngine, type Engine, type EngineOptions, type WorkerOptions, type RunInfo, type DispatchResult } from './engine/engine.js'
export { acquireLease, leaseHolder, type Lease, type LeaseHolder, type LeaseOptions } from './engine/lease.js'
export { RUNS, CONTROL_LOG, JOBS, type RunRecord, type JobEntry } from './engine/run-record.js'

// The job queue on PostgreSQL: dispatch through pg-boss (loaded on first use), executed by workers on any machine.
export { pgBossQueue, queueName, jobId, DEAD_QUEUE, type PgBossQueueOptions } from './queue/pg-boss.js'
export type { RunQueue, RunJob, JobRef, JobPolicy, WorkOptions } from './queue/queue.js'
export { INLINE_LIMIT } from './engine/artifacts.js'
export { RUN_ID_PATTERN } from './engine/ids.js'

// The journal: records, the state machine, replay and follow.
export { TRANSITIONS, TERMINAL, isTerminal, canMove, journalLog, parseRecord, type RunStatus, type JournalRecord, type JournalError } from './journal/records.js'
export { foldRecords, type RunState } from './journal/fold.js'
export { followJournal, readJournal, logChanges, type FollowOptions } from './journal/follow.js'

// Watching, workspaces, state, triggers.
export { watchRun, EXIT, type WatchOptions } from './watch/watch.js'
export { renderRecord } from './watch/render.js'
export { loadWorkspace, type Workspace, type LoadOptions } from './workspace/load.js'
export { findSource, WORKSPACE_FOLDER, LEGACY_CONFIG, type WorkspaceSource } from './workspace/source.js'
export { checkEnv, ENV_SCHEMA_FILE, type EnvSchema } from './workspace/env.js'
export { openState, type StateOptions, type MarblesState } from './state.js'
export { startTriggers, type TriggerLoop, type TriggerOptions } from './triggers/serve.js'
export { parseCron, nextCron, type Cron } from './triggers/cron.js'

// Agents: the harnesses, agent runs (memory index first, contract, firewall), `marbles mcp`.
export { claudeCodeHarness, CLAUDE_MAX_TURNS } from './harnesses/claude-code.js'
export { type CliHarnessOptions } from './harnesses/stream-cli.js'
export { codexHarness } from './harnesses/codex.js'
export { piHarness } from './harnesses/pi.js'
export { aiSdkHarness, dryRunModel, DEFAULT_STEPS, type AiSdkHarnessOptions, type ModelResolver } from './harnesses/ai-sdk.js'
export { createHarnesses, CLI_HARNESSES, AI_SDK_PROVIDERS, type HarnessesOptions } from './harnesses/registry.js'
export { HarnessError, type Harness, type AgentRequest, type AgentResult, type AgentUsage } from './harnesses/types.js'
export { prepareAgentRun, runAgent, agentRunName, type AgentDispatch, type AgentRunInput, type AgentRunOutput, type AgentHost } from './agents/agent-run.js'
export { handOff, parseAnswer, ContractViolation, type AgentOutput } from './agents/answer.js'
export { SESSIONS, type SessionRef, type SessionRecord } from './agents/sessions.js'
export { openHost, PAGE_CHARS, type MarblesHost, type MarblesHostOptions } from './mcp/host.js'
export { createMarblesServer } from './mcp/server.js'
export { serveMarblesStdio, type ServeMarblesStdioOptions } from './mcp/stdio.js'
export { serveMarblesHttp, type ServeMarblesHttpOptions } from './mcp/http.js'
