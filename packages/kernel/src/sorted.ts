/** The first index of `sorted` (ascending, by code unit) whose value is not below `value`: where `value` is or would go. */
export function lowerBound(sorted: readonly string[], value: string): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! < value) lo = mid + 1
    else hi = mid
  }
  return lo
}
