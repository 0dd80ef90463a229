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
