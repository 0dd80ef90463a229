import { createHash } from 'node:crypto'
import type { Storage } from '@foundry/kernel'
import { KIND } from '../define/brand.js'
import type { Definitions, Runnable } from '../define/registry.js'
import { isTerminal } from '../journal/records.js'
import { journalWriter } from '../journal/writer.js'
import type { RunState } from '../journal/fold.js'
import { RUNS } from './run-record.js'

/** Per workflow and key, the runs holding a concurrency slot and the recent starts: `marbles.holds/<sha256>`. */
export const HOLDS = 'marbles.holds'

/** One bucket of a workflow's limits. */
export interface HoldEntry {
  /** Runs admitted and not yet settled or suspended. */
  running: string[]
  /** When runs were admitted, within the rate limit's period. */
  starts: number[]
}

declare module '@foundry/kernel' {
  interface Collections {
    'marbles.holds': HoldEntry
  }
}

/** Whether a run may start now, or why not and when to ask again. */
export type Admission = { admitted: true } | { admitted: false; reason: string; retryAt: number }

/** Whether any workflow of the workspace declares a concurrency or rate limit (else admission reads nothing). */
export function hasLimits(definitions: Definitions): boolean {
  for (const def of definitions.runnables.values())
    if (def[KIND] === 'workflow' && (def.limits?.concurrency || def.limits?.rateLimit)) return true
  return false
}

/** How soon a run held by a concurrency limit asks again (a slot frees when a run settles, maybe in another process). */
const CONCURRENCY_RETRY_MS = 500

const bucketOf = (name: string, key: string) => createHash('sha256').update(`${name}\0${key}`).digest('hex')

/** The bucket key of a run's input; a key function that throws or returns a non-string counts the run in the bucket "(key failed)". */
function keyOf(fn: ((input: unknown) => string) | undefined, input: unknown): string {
  if (!fn) return ''
  try {
    const key = fn(input)
    return typeof key === 'string' ? key : String(key)
  } catch {
    return '(key failed)'
  }
}

/**
 * Admit the run (state: its journal as it stands) under its workflow's concurrency and rate limits,
 * inside the storage's exclusive section, so processes sharing the state never exceed them. A
 * workflow without limits is always admitted. A held run keeps `queued`; its record's reason says
 * why, and its journal says so once.
 */
export async function admit(
  storage: Storage,
  def: Runnable | undefined,
  runId: string,
  state: RunState,
): Promise<Admission> {
  if (def?.[KIND] !== 'workflow' || (!def.limits?.concurrency && !def.limits?.rateLimit)) return { admitted: true }
  const { concurrency, rateLimit } = def.limits
  const buckets = [
    ...new Set([
      concurrency && bucketOf(def.name, `c:${keyOf(concurrency.key, state.input)}`),
      rateLimit && bucketOf(def.name, `r:${keyOf(rateLimit.key, state.input)}`),
    ]),
  ].filter(Boolean) as string[]
  const verdict = await storage.exclusive(async () => {
    const now = Date.now()
    const entries = new Map<string, HoldEntry>()
    for (const bucket of buckets) entries.set(bucket, (await storage.get(HOLDS, bucket)) ?? { running: [], starts: [] })
    if (concurrency) {
      const entry = entries.get(bucketOf(def.name, `c:${keyOf(concurrency.key, state.input)}`))!
      entry.running = await stillHolding(storage, entry.running, runId)
      if (!entry.running.includes(runId) && entry.running.length >= concurrency.limit)
        return {
          admitted: false as const,
          reason: `waiting: concurrency limit ${concurrency.limit}${concurrency.key ? ` for key "${keyOf(concurrency.key, state.input)}"` : ''} reached`,
          retryAt: now + CONCURRENCY_RETRY_MS,
        }
    }
    if (rateLimit) {
      const entry = entries.get(bucketOf(def.name, `r:${keyOf(rateLimit.key, state.input)}`))!
      entry.starts = entry.starts.filter((at) => at > now - rateLimit.periodMs)
      if (entry.starts.length >= rateLimit.limit)
        return {
          admitted: false as const,
          reason: `waiting: rate limit ${rateLimit.limit} per ${rateLimit.periodMs} ms${rateLimit.key ? ` for key "${keyOf(rateLimit.key, state.input)}"` : ''} reached`,
          retryAt: entry.starts[0]! + rateLimit.periodMs,
        }
      entry.starts.push(now)
    }
    if (concurrency) {
      const entry = entries.get(bucketOf(def.name, `c:${keyOf(concurrency.key, state.input)}`))!
      if (!entry.running.includes(runId)) entry.running.push(runId)
    }
    for (const [bucket, entry] of entries) await storage.put(HOLDS, bucket, entry)
    return { admitted: true as const }
  })
  if (!verdict.admitted) await held(storage, runId, state, verdict.reason)
  return verdict
}

/** The run left its slot (it settled or suspended): free it for the next. */
export async function release(
  storage: Storage,
  def: Runnable | undefined,
  runId: string,
  state: RunState,
): Promise<void> {
  const concurrency = def?.[KIND] === 'workflow' ? def.limits?.concurrency : undefined
  if (!concurrency) return
  const bucket = bucketOf(def!.name, `c:${keyOf(concurrency.key, state.input)}`)
  await storage.exclusive(async () => {
    const entry = await storage.get(HOLDS, bucket)
    if (!entry?.running.includes(runId)) return
    await storage.put(HOLDS, bucket, { ...entry, running: entry.running.filter((id) => id !== runId) })
  })
}

/** The runs of `running` still holding their slot: not settled and not suspended (a dead process's run holds it until it is reconciled). */
async function stillHolding(storage: Storage, running: string[], self: string): Promise<string[]> {
  const out: string[] = []
  for (const id of running) {
    if (id === self) {
      out.push(id)
      continue
    }
    const record = await storage.get(RUNS, id)
    if (record && !isTerminal(record.status) && record.status !== 'suspended') out.push(id)
  }
  return out
}

/** Say why the run waits: its record's reason, and one journal line when the reason is new. */
async function held(storage: Storage, runId: string, state: RunState, reason: string): Promise<void> {
  const record = await storage.get(RUNS, runId)
  if (record?.status !== 'queued' || record.reason === reason) return
  await storage.put(RUNS, runId, { ...record, reason }, { durability: 'relaxed' })
  const writer = journalWriter(storage, runId, state.nextSeq, { bytes: state.journalBytes })
  await writer.write({ type: 'log', level: 'info', message: reason })
  writer.close()
}
