/** Requests a server runs at once; the others wait their turn. */
export const MAX_RUNNING = 8
/** Requests that may wait; past this a request is refused as busy, at once. */
export const MAX_WAITING = 256

/**
 * A bound on the work in flight: at most `running` calls at once, at most `waiting` queued behind
 * them, first come first served. `run` refuses with `BusyError` past that, before doing anything, so
 * a burst of requests costs a queue entry each and never a tool call's memory.
 */
export function createLimiter(running = MAX_RUNNING, waiting = MAX_WAITING) {
  let active = 0
  const queue: (() => void)[] = []
  // The slot of a finished call passes to the first one waiting, or frees up.
  const next = () => {
    const waiter = queue.shift()
    if (waiter) waiter()
    else active--
  }
  return {
    /** Requests running and waiting now. */
    load: () => active + queue.length,
    async run<T>(fn: () => Promise<T>): Promise<T> {
      if (active >= running) {
        if (queue.length >= waiting) throw new BusyError(active + queue.length, running + waiting)
        await new Promise<void>((resolve) => queue.push(resolve))
      } else active++
      try {
        return await fn()
      } finally {
        next()
      }
    },
  }
}

/** Past the limiter's bound: nothing was done; the caller may retry shortly. */
export class BusyError extends Error {
  constructor(
    readonly load: number,
    readonly limit: number,
  ) {
    super(`the server is busy (${load} requests in flight, the limit is ${limit}); nothing was done: retry in a moment`)
  }
}
