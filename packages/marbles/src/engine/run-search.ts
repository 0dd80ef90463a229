import { FoundryError, type Storage } from '@foundry/kernel'
import type { RunStatus } from '../journal/records.js'
import { RUNS, type RunRecord } from './run-record.js'

/** Every status a run can have, as `--status` spells them. */
export const RUN_STATUSES: readonly RunStatus[] = [
  'queued',
  'running',
  'suspended',
  'cancel_requested',
  'complete',
  'failed',
  'cancelled',
]

/** Which runs a search returns; every field narrows it. */
export interface RunFilter {
  /** At most this many, newest first. Default 20. */
  limit?: number
  /** Only runs in one of these statuses. */
  status?: readonly RunStatus[]
  /** Only runs of this workflow, step or agent run name (`agent:reviewer`). */
  workflow?: string
  /** Only runs created at or after this time (epoch ms). */
  since?: number
}

/**
 * Runs from the `marbles.runs` index (one small record a run, never its journal), newest first.
 * The index follows each run's journal, so a status read here is at most one write behind it.
 */
export async function searchRuns(storage: Storage, filter: RunFilter = {}): Promise<RunRecord[]> {
  const { limit = 20, status, workflow, since } = filter
  const wanted = status && new Set(status)
  const records = await storage.list(RUNS)
  return records
    .filter(
      (r) =>
        (!wanted || wanted.has(r.status)) &&
        (workflow === undefined || r.name === workflow) &&
        (since === undefined || r.createdAt >= since),
    )
    .sort((a, b) => b.createdAt - a.createdAt)
    .slice(0, limit)
}

const AGE_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** An age such as `30d`, `12h`, `2w`, `45m` or `0s` in milliseconds; INVALID_INPUT naming `field` otherwise. */
export function parseAge(text: string, field: string): number {
  const match = /^(\d+)(s|m|h|d|w)$/.exec(text.trim())
  if (!match) throw new FoundryError('INVALID_INPUT', `${field} must be an age like 30d, 12h, 2w or 45m; got "${text}"`)
  return Number(match[1]) * AGE_UNITS[match[2]!]!
}

/** `--since`: an age (`2h`: the last two hours) or a date (`2026-11-30`, ISO 8601), as epoch ms. */
export function parseSince(text: string, now = Date.now()): number {
  if (/^\d+[smhdw]$/.test(text.trim())) return now - parseAge(text, '--since')
  const at = Date.parse(text)
  if (Number.isNaN(at))
    throw new FoundryError(
      'INVALID_INPUT',
      `--since must be an age like 2h or 7d, or a date like 2026-11-30; got "${text}"`,
    )
  return at
}

/** `--status`: statuses separated by commas, each one of `RUN_STATUSES`. */
export function parseStatuses(text: string, field = '--status'): RunStatus[] {
  const statuses = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const bad = statuses.find((s) => !RUN_STATUSES.includes(s as RunStatus))
  if (bad !== undefined || !statuses.length)
    throw new FoundryError(
      'INVALID_INPUT',
      `${field} must be one or more of ${RUN_STATUSES.join(', ')} (comma-separated); got "${bad ?? text}"`,
    )
  return statuses as RunStatus[]
}
