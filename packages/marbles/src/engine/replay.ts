import type { Storage } from '@foundry/kernel'
import { foldRecords, type RunState } from '../journal/fold.js'
import { foldJournal, readJournal } from '../journal/follow.js'

/**
 * The journal a run replays from besides its own: the interrupted run a linked run resumes (all of
 * it), or the run a re-run re-runs (its records before `replayBefore`: the steps that ended before
 * the step it re-runs from). Undefined for a run that is neither.
 */
export async function inheritedState(storage: Storage, state: RunState): Promise<RunState | undefined> {
  if (state.resumes) return foldJournal(storage, state.resumes)
  if (!state.rerunOf) return undefined
  const before = state.replayBefore ?? Number.POSITIVE_INFINITY
  return foldRecords((await readJournal(storage, state.rerunOf)).filter((record) => record.seq < before))
}
