// @foundry/marbles/engine: for embedders. Open an engine on a state, dispatch, cancel and watch runs,
// read their journals; load a workspace and open a project's state as the `marbles` CLI does.
// Every public name of the subpath is listed here.

// The engine: dispatch, cancel, status, reconciliation; what it runs.
export { openEngine, type Engine } from './engine.js'
export { defineWorkspace } from '../define/registry.js'
// The job queue on PostgreSQL: dispatch through pg-boss (loaded on first use), executed by workers on any machine.
export { pgBossQueue } from '../queue/pg-boss.js'
// The journal: read and follow (a run's state is `Engine.get`'s).
export { followJournal, readJournal } from '../journal/follow.js'
export { watchRun } from '../watch/watch.js'
// What the CLI is built from: a workspace, a project's state, schedules and monitors.
export { loadWorkspace } from '../workspace/load.js'
export { openState } from '../state.js'
export { startTriggers } from '../triggers/serve.js'
