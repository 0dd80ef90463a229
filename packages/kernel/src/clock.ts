/** What the clock feature-detects on `globalThis`. */
interface ClockHost {
  process?: { hrtime?: { bigint?: () => bigint } }
  performance?: { now(): number }
}

const host = globalThis as ClockHost

/**
 * Milliseconds on a monotonic clock, for durations and idleness: Node's (and Bun's, Deno's)
 * `process.hrtime` where the runtime has one, else `performance` (browsers), else `Date`. Not
 * `performance` first: in Node its first use loads a dozen internal modules, most of a millisecond
 * of every new process (a hook, a CLI call) that otherwise never needs them.
 */
export const monotonicMs: () => number = host.process?.hrtime?.bigint
  ? () => Number(host.process!.hrtime!.bigint!()) / 1e6
  : () => (host.performance ?? Date).now()

/**
 * `date.toISOString()`, written from its UTC fields: the same text for any year 0 to 9999 (others,
 * and an invalid date, go to `toISOString` itself). V8 sets up `toISOString` on its first call, about
 * a millisecond of every new process that stamps one event; its field getters cost nothing.
 */
export function isoTime(date: Date): string {
  const year = date.getUTCFullYear()
  if (!(year >= 0 && year <= 9999)) return date.toISOString()
  return `${pad(year, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}.${pad(date.getUTCMilliseconds(), 3)}Z`
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}
