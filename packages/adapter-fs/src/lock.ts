import { AsyncLocalStorage } from 'node:async_hooks'
import { lstatSync, mkdirSync, readFileSync, rmdirSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { dirname, join } from 'node:path'
import { FoundryError } from '@foundry/kernel'
import { readTextSync } from './io.js'

export interface LockOptions {
  /**
   * A lock not refreshed for this long is broken once its holder is gone (no process with its pid
   * and start time on this host; on its age alone for a holder on another host). The holder
   * refreshes it every `stale / 2` ms. Default 10 000; at least 2 000.
   */
  stale?: number
  /** How long to wait for the section before throwing UNAVAILABLE. Default 30 000 ms. */
  timeout?: number
}

/** The exclusive section: one holder at a time across every process sharing the data folder. */
export interface SectionLock {
  /** Run `fn` holding the lock. Throws UNSUPPORTED when called from inside a section of the same lock (it would wait for itself). */
  run<T>(fn: () => Promise<T>): Promise<T>
  /**
   * Called before every rename or unlink: inside a section of this lock, throws UNAVAILABLE when
   * the lock is no longer ours (taken over, or its refresh found it compromised), so a holder that
   * lost its lock never writes. Outside a section it does nothing.
   */
  fence(): void
}

/**
 * The sections the current async context runs inside (by lock path, any storage instance), so that
 * a nested call is refused instead of waiting forever for its own caller. A section is `open` until
 * it settles: work it started without awaiting may still enter the section afterwards.
 */
const inside = new AsyncLocalStorage<ReadonlyArray<Held>>()

interface Held {
  path: string
  open: boolean
  /** This holding's fencing token, also in `<lock>/owner`. */
  token: string
  lost(): Error | undefined
}

/** Who holds a lock: written to `<lock>/owner` once it is taken. */
interface Owner {
  host: string
  pid: number
  /** The process's start time (Linux: /proc/<pid>/stat field 22), so a reused pid is not taken for it. */
  start: string
  token: string
}

interface Taken {
  token: string
  /** Why the lock is no longer ours, once the refresh found out. */
  lost(): Error | undefined
  release(): void
}

const OWNER = 'owner'

/**
 * A fresh token for each holding: the clock and two draws of V8's generator (seeded from the system's
 * randomness), some 100 bits. It tells holdings apart, beside the host and pid in `owner`; it guards
 * nothing against a reader, so `node:crypto` (a few ms of a new process's first write) is not loaded.
 */
const randomToken = () =>
  `${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`
const HOST = hostname()

/**
 * A cross-process lock on `path` (a directory created with mkdir, its time refreshed every
 * `stale / 2` ms while held), with an in-process queue in front so that only one caller per
 * process polls for it. Waiters retry with a short randomised backoff (2 ms growing to 32 ms), so
 * many contending processes keep making progress.
 *
 * The holder writes `<lock>/owner`: its host, pid, process start time and a fresh token. A lock held
 * by a process of this host is broken as soon as no process with that pid and start time runs (a
 * holder killed mid-write stalls the others for one poll, not for `stale` ms; one stopped or busy
 * for minutes keeps it); from another host, or without an owner file, once it has not been
 * refreshed for `stale` ms. It is broken by one waiter at a time, holding
 * `<lock>.break` (a plain check-then-remove would let two waiters that find it stale at once both
 * enter). Every rename in a section is fenced (a batch's renames, run back to back, together): it
 * goes ahead only while `<lock>/owner` still holds the section's token.
 */
export function createSectionLock(path: string, options: LockOptions = {}): SectionLock {
  const stale = Math.max(2000, options.stale ?? 10_000)
  const timeout = options.timeout ?? 30_000
  const breaker = `${path}.break`
  let queue: Promise<unknown> = Promise.resolve()

  const isStale = (at: string) => {
    const stat = statSync(at, { throwIfNoEntry: false })
    return stat !== undefined && Date.now() - stat.mtimeMs > stale
  }
  /** Its holder, a process of this host, is gone; or it is stale and its holder is no live process of this host. */
  const isAbandoned = () => {
    const owner = readOwner(path)
    if (isAlive(owner)) return false
    return owner?.host === HOST || isStale(path)
  }

  /** Remove the lock when it is abandoned, holding `<lock>.break` so that no other waiter removes the lock we then take. */
  function breakIfStale(): void {
    const link = lstatSync(path, { throwIfNoEntry: false })
    if (link && !link.isDirectory()) {
      removeQuietly(path) // a link or a file in the lock's place is no lock Foundry made: never followed
      return
    }
    if (!isAbandoned()) return
    try {
      mkdirSync(breaker)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      // Another waiter is breaking it; a breaker left by a crash (a microsecond window) expires too.
      // A link or a file in its place is no breaker Foundry made: removed, never followed.
      if (!lstatSync(breaker, { throwIfNoEntry: false })?.isDirectory()) removeQuietly(breaker)
      else if (isStale(breaker)) rmdirSync(breaker)
      return
    }
    try {
      if (isAbandoned()) removeLock(path) // still abandoned under the breaker: its holder is gone
    } finally {
      rmdirSync(breaker)
    }
  }

  /** mkdir the lock, write its owner file and keep it fresh; undefined when another holds it. */
  function tryTake(): Taken | undefined {
    try {
      mkdirSync(path)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EEXIST' || code === 'ENOTDIR') return undefined
      if (code !== 'ENOENT') throw error
      mkdirSync(dirname(path), { recursive: true })
      return undefined
    }
    const token = randomToken()
    const owner: Owner = { host: HOST, pid: process.pid, start: startTime(process.pid) ?? '', token }
    try {
      writeFileSync(join(path, OWNER), JSON.stringify(owner), { flag: 'wx' })
    } catch (error) {
      rmdirSync(path)
      throw error
    }
    let lost: Error | undefined
    // The refresh: while the owner file is ours, touch the lock. A timer, so a blocked event loop
    // misses it; the holder is then kept by its liveness (see isAbandoned), not its age.
    const timer = setInterval(() => {
      const now = readOwner(path)
      if (now?.token !== token) {
        lost = new Error(now ? `now held by pid ${now.pid} on ${now.host}` : 'it was removed')
        clearInterval(timer)
        return
      }
      try {
        const at = new Date()
        utimesSync(path, at, at)
      } catch {
        // removed just now: the next tick or the fence finds out
      }
    }, stale / 2)
    timer.unref()
    return {
      token,
      lost: () => lost,
      release() {
        clearInterval(timer)
        // Only our own lock: a lock taken over holds another owner file, and rmdir leaves it alone.
        if (readOwner(path)?.token !== token) return
        try {
          removeLock(path)
        } catch {
          // gone already
        }
      },
    }
  }

  async function acquire(): Promise<Taken> {
    const deadline = Date.now() + timeout
    for (let attempt = 0; ; attempt++) {
      let taken: Taken | undefined
      try {
        taken = tryTake() ?? (breakIfStale(), undefined)
      } catch (error) {
        throw new FoundryError('UNAVAILABLE', `Cannot take the write lock ${path}: ${(error as Error).message}`, {
          cause: error,
        })
      }
      if (taken) return taken
      if (Date.now() >= deadline)
        throw new FoundryError(
          'UNAVAILABLE',
          `Timed out after ${timeout} ms waiting for the write lock ${path}: another process holds it. ` +
            `A crashed holder's lock is broken automatically once it is ${stale} ms old and its process is gone; if no Foundry process is running, delete that folder.`,
        )
      const delay = Math.min(32, 2 * 1.5 ** attempt)
      await new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random() / 2)))
    }
  }

  async function section<T>(fn: () => Promise<T>): Promise<T> {
    const held = await acquire()
    const here: Held = { path, open: true, token: held.token, lost: held.lost }
    let result: T
    try {
      result = await inside.run([...(inside.getStore() ?? []), here], fn)
    } finally {
      here.open = false
      held.release()
    }
    const lost = held.lost()
    if (lost)
      throw new FoundryError(
        'UNAVAILABLE',
        `The write lock ${path} was lost while held (${lost.message}): another process broke it as abandoned, and this section's writes after that were refused. Check the last write and retry.`,
        { cause: lost },
      )
    return result
  }

  return {
    fence() {
      const held = inside.getStore()?.find((s) => s.path === path && s.open)
      if (!held) return
      const lost = held.lost()
      const owner = readOwner(path)
      if (!lost && owner?.token === held.token) return
      throw new FoundryError(
        'UNAVAILABLE',
        `The write lock ${path} was lost while held (${lost?.message ?? (owner ? `now held by pid ${owner.pid} on ${owner.host}` : 'it was removed')}), so nothing more is written in this section. Retry the write.`,
        { cause: lost },
      )
    },

    run<T>(fn: () => Promise<T>): Promise<T> {
      if (inside.getStore()?.some((s) => s.path === path && s.open))
        return Promise.reject(
          new FoundryError(
            'UNSUPPORTED',
            `exclusive was called from inside an exclusive section of ${dirname(dirname(path))}: sections do not nest, and this one would wait for itself. Do the inner work directly in the outer section.`,
          ),
        )
      const run = queue.then(
        () => section(fn),
        () => section(fn),
      )
      queue = run.catch(() => {})
      return run
    },
  }
}

/** The write lock at `path` as `foundry doctor` sees it: none, or its holder and whether that process runs on this host. */
export function inspectLock(
  path: string,
): { holder?: { host: string; pid: number }; alive: boolean; ageMs: number } | undefined {
  const stat = lstatSync(path, { throwIfNoEntry: false })
  if (!stat) return undefined
  const owner = stat.isDirectory() ? readOwner(path) : undefined
  return {
    ...(owner && { holder: { host: owner.host, pid: owner.pid } }),
    alive: isAlive(owner),
    ageMs: Date.now() - stat.mtimeMs,
  }
}

/** Remove an abandoned lock (its folder and owner file; a link or file in its place is removed itself). */
export function removeAbandonedLock(path: string): void {
  if (lstatSync(path, { throwIfNoEntry: false })?.isDirectory()) removeLock(path)
  else removeQuietly(path)
}

/** Remove a file or link (never what a link points to); another waiter may have removed it first. */
function removeQuietly(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // gone already
  }
}

/** The owner file of the lock at `path`, or undefined when it is missing or unreadable. */
function readOwner(path: string): Owner | undefined {
  try {
    const owner = JSON.parse(readTextSync(join(path, OWNER))) as Owner
    return owner && typeof owner.token === 'string' && typeof owner.pid === 'number' ? owner : undefined
  } catch {
    return undefined
  }
}

/** Remove a lock directory and its owner file (never following a link: the lock is a plain folder). */
function removeLock(path: string): void {
  try {
    unlinkSync(join(path, OWNER))
  } catch {
    // none: a holder killed between mkdir and writing it, or one from before owner files
  }
  rmdirSync(path)
}

/** Whether `owner` is a process running on this host now; false when unknown (no owner, another host). */
function isAlive(owner: Owner | undefined): boolean {
  if (!owner || owner.host !== HOST || !Number.isSafeInteger(owner.pid) || owner.pid <= 0) return false
  try {
    process.kill(owner.pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  const start = startTime(owner.pid)
  return start === undefined || owner.start === '' || start === owner.start
}

/** A process's start time in clock ticks since boot (Linux), or undefined where /proc does not say. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return undefined
  }
}
