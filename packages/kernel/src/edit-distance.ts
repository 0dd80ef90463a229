let prev = new Int32Array(64)
let curr = new Int32Array(64)

/**
 * Levenshtein distance between `a` and `b` if it is at most `max`, else `max + 1` (MiniSearch's
 * fuzzy distance). Only the diagonal band of width 2·max+1 is computed, in reused buffers: the
 * dictionary scan of a lazily opened snapshot calls this for every term.
 */
export function boundedDistance(a: string, b: string, max: number): number {
  const n = a.length
  const m = b.length
  if (Math.abs(n - m) > max) return max + 1
  if (m + 1 > prev.length) (prev = new Int32Array(m + 1)), (curr = new Int32Array(m + 1))
  const big = max + 1
  for (let j = 0; j <= m; j++) prev[j] = j <= max ? j : big
  for (let i = 1; i <= n; i++) {
    const from = Math.max(1, i - max)
    const to = Math.min(m, i + max)
    curr[0] = i <= max ? i : big
    if (from > 1) curr[from - 1] = big
    let best = curr[0]!
    const ca = a.charCodeAt(i - 1)
    for (let j = from; j <= to; j++) {
      const sub = prev[j - 1]! + (ca === b.charCodeAt(j - 1) ? 0 : 1)
      const del = (j <= i + max - 1 ? prev[j]! : big) + 1
      const ins = (j > from ? curr[j - 1]! : big) + 1
      const v = Math.min(sub, del, ins, big)
      curr[j] = v
      if (v < best) best = v
    }
    if (to < m) curr[to + 1] = big
    if (best > max) return big
    const t = prev
    prev = curr
    curr = t
  }
  return Math.min(prev[m]!, big)
}
