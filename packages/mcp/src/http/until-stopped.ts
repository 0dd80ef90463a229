import { onStopSignal } from '../lifecycle.js'
import { serveHttp, type HttpServeOptions, type HttpServer } from './serve.js'

export interface ServeUntilStoppedOptions extends HttpServeOptions {
  /** How long SIGTERM waits for calls in flight. Default 10 s. */
  deadlineMs?: number
  /** Called once listening, with the URL (the CLI prints it). */
  onListening?: (server: HttpServer) => void
  /**
   * Called once, to close what the server serves: with `false` when it could not listen (then the
   * error is thrown), with `true` after SIGINT/SIGTERM stopped it.
   */
  release(stopped: boolean): Promise<void>
}

/**
 * Serve `serveHttp` until SIGINT/SIGTERM: then no new requests, calls in flight finished (up to the
 * deadline), every session closed, and `release(true)`. Resolves once all that is done.
 */
export async function serveHttpUntilStopped(options: ServeUntilStoppedOptions): Promise<void> {
  const { deadlineMs, onListening, release, ...serve } = options
  let server: HttpServer
  try {
    server = await serveHttp(serve)
  } catch (error) {
    await release(false)
    throw error
  }
  onListening?.(server)
  await new Promise<void>((resolve) =>
    onStopSignal((signal) => {
      options.log(`${signal}: stopping (new requests refused, calls in flight get ${deadlineMs ?? 10_000} ms)`)
      void server
        .close(deadlineMs)
        .then(() => release(true))
        .then(resolve)
    }),
  )
}
