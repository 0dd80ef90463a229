import { FoundryError, type JsonValue, type Storage } from '@foundry/kernel'
import type { RunSummary } from './wire.js'

/** Where Marbles keeps one record a run (its listing), and its journals: logs `marbles/<runId>`. */
export const RUNS = 'marbles.runs'
export const journalLog = (runId: string) => `marbles/${runId}`
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/

/** A run id from a URL. Throws INVALID_INPUT naming the field. */
export function runId(text: string): string {
  if (!RUN_ID.test(text))
    throw new FoundryError(
      'INVALID_INPUT',
      `run id: letters, digits, . _ - (at most 100), got ${JSON.stringify(text.slice(0, 40))}`,
    )
  return text
}

function summaryOf(value: JsonValue, key: string): RunSummary {
  const r = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}
  const text = (v: JsonValue | undefined) => (typeof v === 'string' ? v : undefined)
  const num = (v: JsonValue | undefined) => (typeof v === 'number' ? v : undefined)
  const error = r.error && typeof r.error === 'object' && !Array.isArray(r.error) ? text(r.error.message) : undefined
  const summary: RunSummary = { id: text(r.id) ?? key, name: text(r.name) ?? '', status: text(r.status) ?? 'unknown' }
  const createdAt = num(r.createdAt)
  const updatedAt = num(r.updatedAt)
  const reason = text(r.reason)
  return {
    ...summary,
    ...(createdAt !== undefined && { createdAt }),
    ...(updatedAt !== undefined && { updatedAt }),
    ...(reason && { reason }),
    ...(error && { error }),
  }
}

/** Every run Marbles recorded, most recently updated first (read only). */
export async function listRuns(storage: Storage): Promise<RunSummary[]> {
  const keys = await storage.keys(RUNS)
  const runs = await Promise.all(keys.map(async (key) => ({ key, value: await storage.get(RUNS, key) })))
  return runs
    .filter((r): r is { key: string; value: JsonValue } => r.value !== undefined)
    .map((r) => summaryOf(r.value, r.key))
    .sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0) || a.id.localeCompare(b.id))
}

/** One run's record, or NOT_FOUND when neither a record nor a journal exists. */
export async function getRun(storage: Storage, id: string): Promise<RunSummary> {
  const value = await storage.get(RUNS, id)
  if (value !== undefined) return summaryOf(value, id)
  if ((await storage.logEnd(journalLog(id))) > 0) return { id, name: '', status: 'unknown' }
  throw new FoundryError('NOT_FOUND', `run ${id}: no such run; the Runs page lists them`)
}

/** Journal entries from `cursor` on, each parsed (an entry that is not JSON is kept as its text), and the cursor after them. */
export async function readJournal(
  storage: Storage,
  id: string,
  cursor: number,
): Promise<{ records: JsonValue[]; cursor: number }> {
  const page = await storage.readLog(journalLog(id), cursor, { limit: 500 })
  return { records: page.entries.map(parsed), cursor: page.cursor }
}

function parsed(entry: string): JsonValue {
  try {
    return JSON.parse(entry) as JsonValue
  } catch {
    return entry
  }
}
