import type { Project } from '@foundry/project'
import { startHookServer, type StartedHooks } from './hook-server.js'

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
