import type { Project } from '@foundry/project'
import { startHookServer, type StartedHooks } from './hook-server.js'

/*
 * What every server process does whatever its transport (stdio or HTTP), for `foundry mcp` and
 * `marbles mcp` alike: where diagnostics go, surviving a stray exception, stopping on a signal, and
 * (for `foundry mcp`) opening the project once with its hook server beside it.
 */

/** One diagnostic line on stderr, prefixed with the server's name. */
export function stderrLog(name: string): (line: string) => void {
  return (line) => void process.stderr.write(`${name}: ${line}\n`)
}

/**
 * A long-lived server: anything a dependency prints goes to stderr (stdout may carry the protocol),
 * and no stray exception ends the process: each request's own failure is its answer already, so one
 * that escapes (a timer, a stream) is logged in one line and the other requests are served.
 */
export function keepServing(log: (line: string) => void): void {
  console.log = console.info = console.debug = console.error
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

/** The project a server opens at most once (again only after a failure), and what it started beside it. */
export interface ProjectOpener {
  /** Open the project (first call), or the one opened; starts the hook server with it when asked. */
  open(): Promise<Project>
  /** Stop the hook server, then flush and release the project. Never throws: failures are logged. */
  close(): Promise<void>
}

export function projectOpener(open: () => Promise<Project>, options: { hooks: boolean; log: (line: string) => void }): ProjectOpener {
  let opened: Promise<Project> | undefined
  let hooks: Promise<StartedHooks | undefined> | undefined
  let closing = false
  const { log } = options
  return {
    async open() {
      // One project for every caller; a failed open is tried again by the next.
      opened ??= open().catch((error: unknown) => {
        opened = undefined
        throw error
      })
      const project = await opened
      if (options.hooks && !closing) hooks ??= startHookServer(project, log)
      return project
    },
    async close() {
      closing = true
      await (await hooks)?.close().catch((error: unknown) => log(`closing the hook server failed: ${(error as Error).message}`))
      await (await opened?.catch(() => undefined))?.close().catch((error: unknown) => log(`closing the project failed: ${(error as Error).message}`))
    },
  }
}

export function oneLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}${error.stack?.split('\n')[1]?.replace(/^\s+/, ' ') ?? ''}` : String(error)
  return text.replace(/\s+/g, ' ').slice(0, 500)
}
