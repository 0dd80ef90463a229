import { onStopSignal } from '../lifecycle.js'
import { httpLimits } from './limits.js'
import { serveHttp, type HttpServeOptions, type HttpServer } from './serve.js'

/** Where a team server listens and how it stops: what `foundry mcp --http` and `marbles mcp --http` both take. */
export interface HttpListenOptions {
  host?: string
  port?: number
  /** More Host names clients may use (`--allow-host`), e.g. the machine's name when bound to 0.0.0.0. */
  hostnames?: string[]
  /** How long SIGTERM waits for calls in flight. Default 10 s. */
  deadlineMs?: number
  log?: (line: string) => void
  /** Called once listening, with the URL (the CLI prints it). */
  onListening?: (server: HttpServer) => void
}

export interface ServeUntilStoppedOptions extends Omit<HttpServeOptions, 'host' | 'port' | 'hostnames'> {
  /**
   * Called once, to close what the server serves: with `false` when it could not listen (then the
   * error is thrown), with `true` after SIGINT/SIGTERM stopped it.
   */
  release(stopped: boolean): Promise<void>
}

/**
 * Serve `serveHttp` on `listen` until SIGINT/SIGTERM: then no new requests, calls in flight finished
 * (up to the deadline), every session closed, and `release(true)`. Resolves once all that is done.
 * Without `limits`, they come from the environment (`httpLimits`).
 */
export async function serveHttpUntilStopped(
  listen: HttpListenOptions,
  options: ServeUntilStoppedOptions,
): Promise<void> {
  const { release, ...serve } = options
  // Listening for the stop signals before the address is logged: a supervisor may send one as soon as it reads it.
  let signalled: string | undefined
  let stop = (signal: string) => void (signalled = signal)
  const off = onStopSignal((signal) => stop(signal))
  let server: HttpServer
  try {
    server = await serveHttp({
      ...serve,
      limits: serve.limits ?? httpLimits(),
      ...(listen.host !== undefined && { host: listen.host }),
      ...(listen.port !== undefined && { port: listen.port }),
      ...(listen.hostnames && { hostnames: listen.hostnames }),
    })
  } catch (error) {
    off()
    await release(false)
    throw error
  }
  listen.onListening?.(server)
  await new Promise<void>((resolve) => {
    stop = (signal) => {
      options.log(`${signal}: stopping (new requests refused, calls in flight get ${listen.deadlineMs ?? 10_000} ms)`)
      void server
        .close(listen.deadlineMs)
        .then(() => release(true))
        .then(resolve)
    }
    if (signalled) stop(signalled)
  })
}
