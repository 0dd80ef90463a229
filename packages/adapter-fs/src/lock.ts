import { AsyncLocalStorage } from 'node:async_hooks'
import { mkdirSync, rmdirSync, statSync } from 'node:fs'
import { dirname } from 'node:path'
import { FoundryError } from '@foundry/kernel'

// Loaded on the first section: processes that only read never pay for it.
let lockfile: Promise<typeof import('proper-lockfile')> | undefined

export interface LockOptions {
  /**
   * A lock not refreshed for this long is taken for abandoned (its holder crashed) and broken.
   * The holder refreshes it every `stale / 2` ms. Default 10 000; at least 2 000.
   */
  stale?: number
  /** How long to wait for the section before throwing UNAVAILABLE. Default 30 000 ms. */
  timeout?: number
}

/** The exclusive section: one holder at a time across every process sharing the data folder. */
export interface SectionLock {
  /** Run `fn` holding the lock. Throws UNSUPPORTED when called from inside a section of the same lock (it would wait for itself). */
  run<T>(fn: () => Promise<T>): Promise<T>
}

/**
 * The sections the current async context runs inside (by lock path, any storage instance), so that
 * a nested call is refused instead of waiting forever for its own caller. A section is `open` until
 * it settles: work it started without awaiting may still enter the section afterwards.
 */
const inside = new AsyncLocalStorage<ReadonlyArray<{ path: string; open: boolean }>>()

/** proper-lockfile never breaks a lock itself (see `breakIfStale`); it only keeps ours fresh. */
const NEVER = 2 ** 31 - 1

/**
 * A cross-process lock on `path` (a directory created with mkdir, through proper-lockfile, which
 * refreshes its time while held), with an in-process queue in front so that only one caller per
 * process polls for it. Waiters retry with a short randomised backoff (2 ms growing to 32 ms), so
 * many contending processes keep making progress. A lock not refreshed for `stale` ms belongs to a
 * crashed holder and is broken by one waiter at a time (proper-lockfile's own check-then-remove
 * would let two waiters that find it stale at once both enter).
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

  /** Remove the lock when it is stale, holding `<lock>.break` so that no other waiter removes the lock we then take. */
  function breakIfStale(): void {
    if (!isStale(path)) return
    try {
      mkdirSync(breaker)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      // Another waiter is breaking it; a breaker left by a crash (a microsecond window) expires too.
      if (isStale(breaker)) rmdirSync(breaker)
      return
    }
    try {
      if (isStale(path)) rmdirSync(path) // still stale under the breaker: its holder is gone
    } finally {
      rmdirSync(breaker)
    }
  }

  async function acquire(): Promise<{ release: () => Promise<void>; lost: () => Error | undefined }> {
    const deadline = Date.now() + timeout
    let lost: Error | undefined
    for (let attempt = 0; ; attempt++) {
      try {
        const loaded = await (lockfile ??= import('proper-lockfile'))
        // A CommonJS module: bundlers may expose its exports only as `default`.
        const { lock } = (loaded as { default?: typeof loaded }).default ?? loaded
        const release = await lock(dirname(path), {
          lockfilePath: path,
          realpath: false,
          stale: NEVER,
          update: stale / 2,
          retries: 0,
          onCompromised: (error) => void (lost = error),
        })
        return { release, lost: () => lost }
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT') mkdirSync(dirname(path), { recursive: true })
        else if (code === 'ELOCKED') breakIfStale()
        else throw new FoundryError('UNAVAILABLE', `Cannot take the write lock ${path}: ${(error as Error).message}`, { cause: error })
        if (Date.now() >= deadline)
          throw new FoundryError(
            'UNAVAILABLE',
            `Timed out after ${timeout} ms waiting for the write lock ${path}: another process holds it. ` +
              `A crashed holder's lock is broken automatically once it is ${stale} ms old; if no Foundry process is running, delete that folder.`,
          )
        const delay = Math.min(32, 2 * 1.5 ** attempt)
        await new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random() / 2)))
      }
    }
  }

  async function section<T>(fn: () => Promise<T>): Promise<T> {
    const held = await acquire()
    const here = { path, open: true }
    let result: T
    try {
      result = await inside.run([...(inside.getStore() ?? []), here], fn)
    } finally {
      here.open = false
      await held.release().catch(() => {}) // already released when compromised
    }
    const lost = held.lost()
    if (lost)
      throw new FoundryError(
        'UNAVAILABLE',
        `The write lock ${path} was lost while held (${lost.message}): the section ran longer than ${stale} ms without refreshing it, so another process may have entered. Check the last write and retry.`,
        { cause: lost },
      )
    return result
  }

  return {
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
