import type { JournalError, WaitFor } from '../journal/records.js'

/**
 * Thrown through a workflow by `ctx.sleep` and `ctx.waitFor`: the engine journals the run `suspended`
 * until `until` (none: a wait without a deadline), and what it waits for.
 */
export class Suspend {
  constructor(
    readonly until: number | undefined,
    readonly waitFor?: WaitFor,
  ) {}
}

/** A wait's deadline passed without its signal. */
export const waitTimeout = (id: string, ms: number) =>
  new DOMException(`waitFor ${id}: no signal within ${ms} ms`, 'TimeoutError')

export const cancelReason = (why = 'cancelled by request') => new DOMException(why, 'AbortError')
export const timeoutReason = (name: string, ms: number) =>
  new DOMException(`${name} timed out after ${ms} ms`, 'TimeoutError')
export const shutdownReason = () => new DOMException('the engine shut down', 'AbortError')
/** A queue worker lost the run's job (retried elsewhere, expired, or handed back at shutdown): it stops without writing; the job's next holder settles the run. */
export const claimLostReason = () => new DOMException("this worker no longer holds the run's job", 'ClaimLost')
export const isClaimLost = (reason: unknown) => reason instanceof DOMException && reason.name === 'ClaimLost'

export function journalError(error: unknown): JournalError {
  if (error instanceof Error || error instanceof DOMException)
    return { name: error.name || 'Error', message: error.message }
  return { name: 'Error', message: String(error) }
}

/** `promise`, or the signal's reason as soon as it aborts (the work itself may carry on: it was told through the signal). */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (error) => (signal.removeEventListener('abort', onAbort), reject(error)),
    )
  })
}
