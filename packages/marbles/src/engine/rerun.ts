import { FoundryError, type JsonValue, type Storage } from '@foundry/kernel'
import type { Definitions } from '../define/registry.js'
import { foldRecords } from '../journal/fold.js'
import { readJournal } from '../journal/follow.js'
import { isTerminal, type JournalRecord } from '../journal/records.js'
import type { StatusFields } from './core.js'
import { findRunnable, versionRefusal } from './runnables.js'

/** What a re-run is dispatched with: the old run's workflow and input, and the link and cut its journal records. */
export interface RerunPlan {
  name: string
  input: JsonValue
  fields: StatusFields
}

/**
 * Plan a re-run of an ended run from `from` (a step id as its journal names it; default: the first
 * step that failed, else none, and every step that ended is replayed). Steps that ended before `from`
 * started are replayed from the old journal; `from` and what follows run. Refused (one line naming
 * the field) for an unknown run, one not ended, an unknown step, or code of another version.
 */
export async function planRerun(
  storage: Storage,
  definitions: Definitions,
  runId: string,
  from?: string,
): Promise<RerunPlan> {
  const records = await readJournal(storage, runId)
  const state = foldRecords(records)
  if (state.status === undefined) throw new FoundryError('NOT_FOUND', `runId: no run ${runId}`)
  if (!isTerminal(state.status))
    throw new FoundryError(
      'CONFLICT',
      `run ${runId} is ${state.status}: re-run a run once it has ended (cancel it first)`,
    )
  const def = findRunnable(definitions, state.name ?? '?')
  const refused = versionRefusal(def, state.version)
  if (refused) throw new FoundryError('CONFLICT', `run ${runId} cannot be re-run here: ${refused.message}`)
  const step = from ?? firstFailed(records)
  const start =
    step === undefined ? undefined : records.find((r) => r.type === 'step' && r.phase === 'start' && r.step === step)
  if (step !== undefined && !start) {
    const ran = [...new Set(records.flatMap((r) => (r.type === 'step' ? [r.step] : [])))]
    throw new FoundryError(
      'INVALID_INPUT',
      `--from: run ${runId} has no step "${step}"; ${ran.length ? `its steps: ${ran.join(', ')}` : 'it ran no step'}`,
    )
  }
  return {
    name: state.name!,
    input: state.input ?? {},
    fields: { rerunOf: runId, ...(start && { replayBefore: start.seq }) },
  }
}

/** The first step (by its first start) whose last attempt failed and that never ended. */
function firstFailed(records: readonly JournalRecord[]): string | undefined {
  const ended = new Set<string>()
  const failed: string[] = []
  for (const r of records) {
    if (r.type !== 'step') continue
    if (r.phase === 'end') ended.add(r.step)
    else if (r.phase === 'error' && !failed.includes(r.step)) failed.push(r.step)
  }
  return failed.find((step) => !ended.has(step))
}
