import { FoundryError } from '@foundry/kernel'

/** Runs one lease holder executes at once when nothing says otherwise: enough for a laptop's agents and workflows. */
export const DEFAULT_CONCURRENCY = 8

/**
 * The lease holder's cap on runs executing at once: a run past it waits its turn, first come first
 * served. A run asked for again while it waits keeps its place.
 */
export interface RunSlots {
  /** Call `start` now when a slot is free, else once one frees, in the order asked. */
  admit(runId: string, start: () => Promise<void>): void
  /** Runs waiting for a slot, oldest first. */
  waiting(): string[]
  /** Forget the runs waiting (the engine is closing; they stay queued in the state). */
  clear(): void
}

/** A cap of `limit` runs at once; INVALID_INPUT when it is not a whole number of at least 1. */
export function createRunSlots(limit: number = DEFAULT_CONCURRENCY): RunSlots {
  assertConcurrency(limit)
  const queue = new Map<string, () => Promise<void>>()
  let running = 0
  const next = () => {
    for (const [runId, start] of queue) {
      if (running >= limit) return
      queue.delete(runId)
      running++
      void start()
        .catch(() => {}) // the core journals a run's failures; a slot is freed whatever happened
        .finally(() => {
          running--
          next()
        })
    }
  }
  return {
    admit(runId, start) {
      if (!queue.has(runId)) queue.set(runId, start)
      next()
    },
    waiting: () => [...queue.keys()],
    clear: () => queue.clear(),
  }
}

/** `concurrency` must be a whole number of at least 1 (`--concurrency`, `openEngine({ concurrency })`). */
export function assertConcurrency(value: number, field = 'concurrency'): void {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new FoundryError('INVALID_INPUT', `${field} must be a whole number of at least 1, got ${value}`)
}
