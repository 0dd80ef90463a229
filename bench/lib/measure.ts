/** Latency figures from a list of samples in milliseconds. */
export interface Latency {
  p50: number
  p99: number
  mean: number
  n: number
}

export function latency(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN
  return { p50: at(0.5), p99: at(0.99), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length, n: sorted.length }
}

/** Time `fn` `n` times (after `warmup` untimed runs), one sample per run. */
export async function sample(n: number, fn: (i: number) => unknown, warmup = Math.min(5, n)): Promise<Latency> {
  for (let i = 0; i < warmup; i++) await fn(-1 - i)
  const samples: number[] = []
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    await fn(i)
    samples.push(performance.now() - t)
  }
  return latency(samples)
}

export const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2))
