/*
 * What every server process does whatever its transport (stdio or HTTP), for `foundry mcp` and
 * `marbles mcp` alike: where diagnostics go, surviving a stray exception, stopping on a signal.
 */

/** One diagnostic line on stderr, prefixed with the server's name. */
export function stderrLog(name: string): (line: string) => void {
  return (line) => void process.stderr.write(`${name}: ${line}\n`)
}

export interface KeepServingOptions {
  /**
   * Send `console.log/info/debug` to stderr (stdout carries the protocol). Process-wide, so only a
   * bin passes it; a library caller keeps its console. Default false.
   */
  console?: boolean
}

/**
 * A long-lived server: no stray exception ends the process. Each request's own failure is its
 * answer already, so one that escapes (a timer, a stream) is logged in one line and the other
 * requests are served. With `console: true`, anything a dependency prints goes to stderr too.
 */
export function keepServing(log: (line: string) => void, options: KeepServingOptions = {}): void {
  if (options.console) console.log = console.info = console.debug = console.error
  process.on('uncaughtException', (error) => log(`uncaught exception (still serving): ${oneLine(error)}`))
  process.on('unhandledRejection', (reason) => log(`unhandled rejection (still serving): ${oneLine(reason)}`))
}

/**
 * Call `stop` once on SIGINT or SIGTERM (`on`, not `once`: signal-exit, under the fs storage's lock,
 * re-raises a signal it believes nobody handles). Returns a function that removes the handlers.
 */
export function onStopSignal(stop: (signal: string) => void): () => void {
  let stopped = false
  const handler = (signal: string) => {
    if (stopped) return
    stopped = true
    stop(signal)
  }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
  return () => {
    process.off('SIGINT', handler)
    process.off('SIGTERM', handler)
  }
}

/** An error in one line of at most 500 characters: name, message and the frame that threw. */
export function oneLine(error: unknown): string {
  const text =
    error instanceof Error
      ? `${error.name}: ${error.message}${error.stack?.split('\n')[1]?.replace(/^\s+/, ' ') ?? ''}`
      : String(error)
  return text.replace(/\s+/g, ' ').slice(0, 500)
}
