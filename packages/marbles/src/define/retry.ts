/** How a step retries: `attempts` in all (1: no retry), waiting `backoffMs × factor^(n-1)` (at most `maxBackoffMs`) before attempt n+1. */
export interface RetryPolicy {
  /** Attempts in all, the first included. Default 1. */
  attempts?: number
  /** The wait before the second attempt. Default 100 ms. */
  backoffMs?: number
  /** Each later wait is this many times the one before. Default 2. */
  factor?: number
  /** No wait is longer. Default 30 000 ms. */
  maxBackoffMs?: number
}

export const NO_RETRY: Required<RetryPolicy> = { attempts: 1, backoffMs: 100, factor: 2, maxBackoffMs: 30_000 }

export function resolveRetry(policy: RetryPolicy | undefined): Required<RetryPolicy> {
  const merged = { ...NO_RETRY, ...policy }
  if (!Number.isInteger(merged.attempts) || merged.attempts < 1)
    throw new TypeError(`retry.attempts must be an integer ≥ 1; got ${merged.attempts}`)
  for (const key of ['backoffMs', 'factor', 'maxBackoffMs'] as const)
    if (!(merged[key] >= 0)) throw new TypeError(`retry.${key} must be a number ≥ 0; got ${merged[key]}`)
  return merged
}

/** The wait after failed attempt `attempt` (1-based) before the next one. */
export function backoff(policy: Required<RetryPolicy>, attempt: number): number {
  return Math.min(policy.maxBackoffMs, policy.backoffMs * policy.factor ** (attempt - 1))
}
