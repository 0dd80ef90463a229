import type { JsonValue } from '@foundry/kernel'
import type { JournalError, JournalRecord, RunStatus, WaitFor } from './records.js'

/** What a journal says about its run: the status derives from it, and a resumed run replays from it. */
export interface RunState {
  status: RunStatus | undefined
  name: string | undefined
  input: JsonValue | undefined
  /** The next seq to write. */
  nextSeq: number
  reason: string | undefined
  error: JournalError | undefined
  wakeAt: number | undefined
  resumes: string | undefined
  resumedBy: string | undefined
  output: { output?: JsonValue; artifact?: string; key?: string } | undefined
  /** Steps that ended, by step id: their result (or artifact path). */
  steps: Map<string, { result?: JsonValue; artifact?: string; key?: string }>
  /** Timers started, by name: when each falls due. */
  timers: Map<string, number>
  /** Waits reached, by id: the signal, deadline and schema each waits for. */
  waits: Map<string, { signal: string; until?: number; schema?: JsonValue }>
  /** Waits that ended, by id: the signal's data, or timed out. */
  signals: Map<string, { data?: JsonValue; timedOut?: boolean }>
  /** While suspended on a wait: what it waits for. */
  waitFor: WaitFor | undefined
  /** The workflow's version the run started under. */
  version: string | undefined
  /** A re-run: the run it re-runs, and the first seq of that journal not replayed. */
  rerunOf: string | undefined
  replayBefore: number | undefined
  createdAt: number | undefined
  updatedAt: number | undefined
  /** Bytes of the journal's records as stored (counted by `foldJournal`; 0 when folded from records). */
  journalBytes: number
}

export function emptyState(): RunState {
  return {
    status: undefined,
    name: undefined,
    input: undefined,
    nextSeq: 0,
    reason: undefined,
    error: undefined,
    wakeAt: undefined,
    resumes: undefined,
    resumedBy: undefined,
    output: undefined,
    steps: new Map(),
    timers: new Map(),
    waits: new Map(),
    signals: new Map(),
    waitFor: undefined,
    version: undefined,
    rerunOf: undefined,
    replayBefore: undefined,
    createdAt: undefined,
    updatedAt: undefined,
    journalBytes: 0,
  }
}

/** Apply one record (in seq order) to the state. */
export function applyRecord(state: RunState, record: JournalRecord): RunState {
  state.nextSeq = Math.max(state.nextSeq, record.seq + 1)
  state.createdAt ??= record.at
  state.updatedAt = record.at
  switch (record.type) {
    case 'status':
      state.status = record.status
      if (record.status === 'queued') {
        state.name = record.name ?? state.name
        state.input = record.input ?? state.input
        state.resumes = record.resumes ?? state.resumes
        state.version = record.version ?? state.version
        state.rerunOf = record.rerunOf ?? state.rerunOf
        state.replayBefore = record.replayBefore ?? state.replayBefore
      }
      state.reason = record.reason
      state.error = record.error
      state.wakeAt = record.wakeAt
      state.waitFor = record.waitFor
      if (record.resumedBy) state.resumedBy = record.resumedBy
      break
    case 'step':
      if (record.phase === 'end')
        state.steps.set(record.step, {
          ...(record.result !== undefined && { result: record.result }),
          ...(record.artifact && { artifact: record.artifact }),
          ...(record.key && { key: record.key }),
        })
      break
    case 'timer':
      state.timers.set(record.name, record.until)
      break
    case 'wait':
      state.waits.set(record.name, {
        signal: record.signal,
        ...(record.until !== undefined && { until: record.until }),
        ...(record.schema !== undefined && { schema: record.schema }),
      })
      break
    case 'signal':
      state.signals.set(record.name, {
        ...(record.data !== undefined && { data: record.data }),
        ...(record.timedOut && { timedOut: true }),
      })
      break
    case 'result':
      state.output = {
        ...(record.output !== undefined && { output: record.output }),
        ...(record.artifact && { artifact: record.artifact }),
        ...(record.key && { key: record.key }),
      }
      break
  }
  return state
}

export function foldRecords(records: Iterable<JournalRecord>): RunState {
  const state = emptyState()
  for (const record of records) applyRecord(state, record)
  return state
}
