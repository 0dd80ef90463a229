// @foundry/marbles/engine: for embedders. Open an engine on a state, dispatch, cancel and watch runs,
// read their journals; load a workspace and open a project's state as the `marbles` CLI does.
// Every public name of the subpath is listed here.

// The engine: dispatch, cancel, status, reconciliation; what it runs.
export { openEngine, type Engine, type EngineOptions, type WorkerOptions, type RunInfo, type DispatchResult } from './engine.js'
export { defineWorkspace, collectDefinitions, type Definitions, type Definition, type Runnable } from '../define/registry.js'
export type { LeaseHolder, LeaseOptions } from './lease.js'
export type { IsolateOptions } from './isolate/isolate.js'
export { INPUT_MAX_BYTES, JOURNAL_LIMITS, type JournalLimits } from './limits.js'
export { RUNS, JOBS, type RunRecord, type JobEntry } from './run-record.js'

// The job queue on PostgreSQL: dispatch through pg-boss (loaded on first use), executed by workers on any machine.
export { pgBossQueue, type PgBossQueueOptions } from '../queue/pg-boss.js'
export type { RunQueue, RunJob, JobRef, JobPolicy, WorkOptions } from '../queue/queue.js'

// The journal: records, the state machine, replay and follow.
export { TRANSITIONS, TERMINAL, isTerminal, canMove, journalLog, type RunStatus, type JournalRecord, type JournalError } from '../journal/records.js'
export { foldRecords, type RunState } from '../journal/fold.js'
export { followJournal, foldJournal, readJournal, type FollowOptions } from '../journal/follow.js'
export { watchRun, EXIT, type WatchOptions } from '../watch/watch.js'

// What the CLI is built from: a workspace, a project's state, schedules and monitors.
export { loadWorkspace, type Workspace, type LoadOptions } from '../workspace/load.js'
export { openState, type StateOptions, type MarblesState } from '../state.js'
export { startTriggers, type TriggerLoop, type TriggerOptions } from '../triggers/serve.js'
