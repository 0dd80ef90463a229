import type { Storage } from '@foundry/kernel'
import { isAlive, thisProcess, type LeaseHolder, type LeaseOptions } from './lease.js'

/**
 * Who executes each run: `marbles.run-leases/<runId>`, the process holding it, written inside the
 * storage's exclusive section before the run starts and deleted once it settled. Any number of
 * engines share a state this way, each executing its own runs (`marbles mcp` per connection); a
 * watcher, a canceller or an engine taking over reads it to tell a live executor from a dead one.
 */
export const RUN_LEASES = 'marbles.run-leases'

declare module '@foundry/kernel' {
  interface Collections {
    'marbles.run-leases': LeaseHolder
  }
}

/** The run leases one engine holds, under one identity (this process, one token). */
export interface RunLeases {
  readonly me: LeaseHolder
  /** Take the run for this engine; false when another live process holds it. Taking one held already is true. */
  claim(runId: string): Promise<boolean>
  /** Whether this engine holds the run (as far as it knows: it claimed and has not released it). */
  holds(runId: string): boolean
  /** Give the run up (it settled, or this engine closes); a lease held by another process is left alone. */
  release(runId: string): Promise<void>
  /** The live process other than this engine that holds the run, if any. */
  heldElsewhere(runId: string): Promise<LeaseHolder | undefined>
  /** Release every run still held and stop the heartbeat. */
  close(): Promise<void>
}

/** The run leases of one engine; on another host a holder is alive while it beats (every `heartbeatMs`, all its runs in one pass). */
export function runLeases(storage: Storage, options: LeaseOptions = {}): RunLeases {
  const ttlMs = options.ttlMs ?? 15_000
  const me = thisProcess()
  const held = new Set<string>()
  const beat = setInterval(() => {
    for (const runId of held)
      void storage
        .exclusive(async () => {
          if ((await storage.get(RUN_LEASES, runId))?.token === me.token)
            await storage.put(RUN_LEASES, runId, { ...me, heartbeatAt: Date.now() }, { durability: 'relaxed' })
        })
        .catch(() => {}) // a busy store skips a beat; the TTL is several beats long
  }, options.heartbeatMs ?? 2000)
  beat.unref()

  const release = async (runId: string) => {
    if (!held.delete(runId)) return
    await storage.exclusive(async () => {
      if ((await storage.get(RUN_LEASES, runId))?.token === me.token) await storage.delete(RUN_LEASES, runId)
    })
  }
  return {
    me,
    async claim(runId) {
      const ok = await storage.exclusive(async () => {
        const current = await storage.get(RUN_LEASES, runId)
        if (current && current.token !== me.token && isAlive(current, ttlMs)) return false
        await storage.put(RUN_LEASES, runId, { ...me, heartbeatAt: Date.now() }, { durability: 'relaxed' })
        return true
      })
      if (ok) held.add(runId)
      return ok
    },
    holds: (runId) => held.has(runId),
    release,
    async heldElsewhere(runId) {
      const current = await storage.get(RUN_LEASES, runId)
      return current && current.token !== me.token && isAlive(current, ttlMs) ? current : undefined
    },
    async close() {
      clearInterval(beat)
      for (const runId of [...held]) await release(runId).catch(() => {})
    },
  }
}

/** The process recorded as executing the run, and whether it still lives; undefined when none is recorded. */
export async function runExecutor(
  storage: Storage,
  runId: string,
  ttlMs = 15_000,
): Promise<{ holder: LeaseHolder; alive: boolean } | undefined> {
  const holder = await storage.get(RUN_LEASES, runId)
  return holder && { holder, alive: isAlive(holder, ttlMs) }
}
