import { duration } from './triggers.js'

/**
 * At most `limit` runs of the workflow execute at once per key, across every process serving the
 * state; the others stay `queued` (with the reason) and start as slots free, in turn.
 */
export interface ConcurrencyOptions<I = unknown> {
  /** The bucket a run counts in, from its input (`(input) => input.customer`). Default: one bucket for the workflow. */
  key?: (input: I) => string
  limit: number
}

/** At most `limit` runs of the workflow start per key in any `periodMs`, across every process; later ones wait. */
export interface RateLimitOptions<I = unknown> {
  key?: (input: I) => string
  limit: number
  /** Milliseconds, or a duration (`1s`, `5m`, `1h`). */
  periodMs: number | string
}

/** A workflow's limits as checked at declaration. */
export interface RunLimits {
  readonly concurrency: { key: ((input: unknown) => string) | undefined; limit: number } | undefined
  readonly rateLimit: { key: ((input: unknown) => string) | undefined; limit: number; periodMs: number } | undefined
}

/** Check a declaration's limits; a TypeError naming the workflow and the field otherwise. */
export function runLimits(
  name: string,
  concurrency?: ConcurrencyOptions<never>,
  rateLimit?: RateLimitOptions<never>,
): RunLimits {
  const limit = (value: number, field: string) => {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new TypeError(`${name}: ${field} must be a whole number of at least 1; got ${value}`)
    return value
  }
  const key = (fn: unknown, field: string) => {
    if (fn !== undefined && typeof fn !== 'function')
      throw new TypeError(`${name}: ${field} must be a function of the input returning a string`)
    return fn as ((input: unknown) => string) | undefined
  }
  return {
    concurrency: concurrency && {
      key: key(concurrency.key, 'concurrency.key'),
      limit: limit(concurrency.limit, 'concurrency.limit'),
    },
    rateLimit: rateLimit && {
      key: key(rateLimit.key, 'rateLimit.key'),
      limit: limit(rateLimit.limit, 'rateLimit.limit'),
      periodMs: duration(rateLimit.periodMs, `${name}: rateLimit.periodMs`),
    },
  }
}
