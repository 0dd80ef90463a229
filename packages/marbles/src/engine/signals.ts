import { FoundryError, validator, type JsonValue, type Storage } from '@foundry/kernel'
import { applyRecord, type RunState } from '../journal/fold.js'
import type { JournalWriter } from '../journal/writer.js'
import { isTerminal } from '../journal/records.js'

/**
 * Signals for a run's waits (`ctx.waitFor`) live in their own log, `marbles/signals/<runId>`, which
 * any process may append to; the run's journal keeps one writer. The body, resumed, takes the
 * first valid entry for its wait and journals it (`signal`), so a replay never reads this log again.
 */
export const signalLog = (runId: string) => `marbles/signals/${runId}`

/** One line of a run's signal log: the wait it answers (`signal` or `signal#n`) and its data. */
export interface SignalEntry {
  wait: string
  data: JsonValue
  at: number
}

/**
 * Check a signal against the wait its run is suspended on (the signal's name, then `data` against the
 * schema the wait journaled), and append it. Throws NOT_FOUND for an unknown run, CONFLICT when the run
 * does not wait for `name` (it keeps its state), INVALID_INPUT when `data` does not fit (the run keeps waiting).
 */
export async function sendSignal(
  storage: Storage,
  runId: string,
  state: RunState,
  name: string,
  data: unknown,
): Promise<void> {
  if (state.status === undefined) throw new FoundryError('NOT_FOUND', `runId: no run ${runId}`)
  const waiting = state.status === 'suspended' ? state.waitFor : undefined
  if (!waiting) {
    const why = isTerminal(state.status)
      ? `it is ${state.status}`
      : state.status === 'suspended'
        ? 'it sleeps on a timer'
        : `it is ${state.status}, not waiting yet: send the signal once it waits`
    throw new FoundryError('CONFLICT', `run ${runId} waits for no signal: ${why}`)
  }
  if (waiting.signal !== name)
    throw new FoundryError('CONFLICT', `name: run ${runId} waits for the signal "${waiting.signal}", not "${name}"`)
  const schema = state.waits.get(waiting.id)?.schema
  const value = (data ?? null) as JsonValue
  if (schema !== undefined) validator(schema as object).parse(value, `data of signal ${name}`)
  const entry: SignalEntry = { wait: waiting.id, data: value, at: Date.now() }
  await storage.appendLog(signalLog(runId), [JSON.stringify(entry)])
}

/** The first signal for the wait `id` whose data fits `check`; undefined when none came yet. */
export async function takeSignal(
  storage: Storage,
  runId: string,
  id: string,
  check: (data: JsonValue) => boolean,
): Promise<SignalEntry | undefined> {
  let cursor = 0
  for (;;) {
    const page = await storage.readLog(signalLog(runId), cursor, { limit: 500 })
    for (const line of page.entries) {
      const entry = parse(line)
      if (entry?.wait === id && check(entry.data)) return entry
    }
    if (!page.entries.length || page.cursor === cursor) return undefined
    cursor = page.cursor
  }
}

function parse(line: string): SignalEntry | undefined {
  try {
    const value = JSON.parse(line) as SignalEntry
    return typeof value?.wait === 'string' ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * A run suspended and about to start again: the reason it wakes, after journaling its wait's outcome
 * (the first signal that fits, or `timedOut` past the deadline); `null` while its wait goes on.
 */
export async function endWait(
  storage: Storage,
  runId: string,
  writer: JournalWriter,
  state: RunState,
  now = Date.now(),
): Promise<string | null> {
  const waiting = state.waitFor
  if (!waiting) return 'timer fell due'
  if (state.signals.has(waiting.id)) return `signal ${waiting.signal} came`
  const schema = state.waits.get(waiting.id)?.schema
  const fits = schema === undefined ? () => true : (data: JsonValue) => validator(schema as object).check(data)
  const entry = await takeSignal(storage, runId, waiting.id, fits)
  const timedOut = !entry && waiting.until !== undefined && now >= waiting.until
  if (!entry && !timedOut) return null
  const record = await writer.write({
    type: 'signal',
    name: waiting.id,
    ...(entry ? { data: entry.data } : { timedOut: true }),
  })
  if (record) applyRecord(state, record)
  return entry ? `signal ${waiting.signal} came` : `the wait for ${waiting.signal} timed out`
}
