import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import type { Storage } from '@foundry/kernel'

/** Who owns a state: the record `marbles.lease/owner`, written inside the storage's exclusive section. */
export interface LeaseHolder {
  token: string
  pid: number
  host: string
  /** The process's start time as the kernel counts it (Linux `/proc/<pid>/stat`), so a reused pid is told apart. */
  pidStart: string | null
  startedAt: number
  heartbeatAt: number
}

export interface Lease {
  readonly holder: LeaseHolder
  /** Aborted when another process took the lease (this one stalled past the TTL on another host). */
  readonly lost: AbortSignal
  release(): Promise<void>
}

export interface LeaseOptions {
  /** How often the holder writes its heartbeat. Default 2 000 ms. */
  heartbeatMs?: number
  /** A holder on another host whose heartbeat is older than this is taken for dead. Default 15 000 ms. */
  ttlMs?: number
}

const COLLECTION = 'marbles.lease'

declare module '@foundry/kernel' {
  interface Collections {
    'marbles.lease': LeaseHolder
  }
}
const KEY = 'owner'

/**
 * Take the state's lease, or return the live holder. A holder on this host is alive while its pid
 * runs with the same start time; one on another host while its heartbeat is fresh.
 */
export async function acquireLease(
  storage: Storage,
  options: LeaseOptions = {},
): Promise<Lease | { refused: LeaseHolder }> {
  const heartbeatMs = options.heartbeatMs ?? 2000
  const ttlMs = options.ttlMs ?? 15_000
  const mine = thisProcess()
  const taken = await storage.exclusive(async () => {
    const current = await storage.get(COLLECTION, KEY)
    if (current && isAlive(current, ttlMs)) return current
    await storage.put(COLLECTION, KEY, mine)
    return undefined
  })
  if (taken) return { refused: taken }

  const lost = new AbortController()
  let released = false
  const beat = setInterval(() => {
    void storage
      .exclusive(async () => {
        const current = await storage.get(COLLECTION, KEY)
        if (current?.token !== mine.token) return false
        await storage.put(COLLECTION, KEY, { ...mine, heartbeatAt: Date.now() }, { durability: 'relaxed' })
        return true
      })
      .then((ours) => {
        if (!ours && !released) lost.abort(new Error('the lease of this state was taken by another process'))
      })
      .catch(() => {}) // a busy store skips a beat; the TTL is several beats long
  }, heartbeatMs)
  beat.unref()
  return {
    holder: mine,
    lost: lost.signal,
    async release() {
      if (released) return
      released = true
      clearInterval(beat)
      await storage.exclusive(async () => {
        const current = await storage.get(COLLECTION, KEY)
        if (current?.token === mine.token) await storage.delete(COLLECTION, KEY)
      })
    },
  }
}

/** The live holder of the state's lease, if any. */
export async function leaseHolder(storage: Storage, ttlMs = 15_000): Promise<LeaseHolder | undefined> {
  const current = await storage.get(COLLECTION, KEY)
  return current && isAlive(current, ttlMs) ? current : undefined
}

/** A new holder naming this process (a fresh token, its pid and the pid's start time, this host, now). */
export function thisProcess(): LeaseHolder {
  const now = Date.now()
  return {
    token: crypto.randomUUID(),
    pid: process.pid,
    host: hostname(),
    pidStart: processStart(process.pid),
    startedAt: now,
    heartbeatAt: now,
  }
}

/** Whether a holder's process lives: on this host its pid runs with the same start time; on another its heartbeat is younger than `ttlMs`. */
export function isAlive(holder: LeaseHolder, ttlMs: number): boolean {
  if (holder.host !== hostname()) return Date.now() - holder.heartbeatAt < ttlMs
  try {
    process.kill(holder.pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false // ESRCH: no such process
  }
  const stat = procStat(holder.pid)
  if (stat?.[0] === 'Z' || stat?.[0] === 'X') return false // a zombie: dead, not yet reaped
  const start = stat?.[19] ?? null
  return holder.pidStart === null || start === null || start === holder.pidStart
}

/** Field 22 of `/proc/<pid>/stat` (start time in clock ticks since boot), or null where there is no /proc. */
function processStart(pid: number): string | null {
  return procStat(pid)?.[19] ?? null
}

/** The fields of `/proc/<pid>/stat` after the command name (state first), or undefined where there is no /proc. */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}
