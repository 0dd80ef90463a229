import type { Project } from '@foundry/project'

/**
 * A service a server runs beside the project once it is open (the app passes the hook server).
 * Resolves what to close when the server stops, or `undefined` when it started nothing; a failure to
 * start is its own to log, never the server's.
 */
export type BesideService = (
  project: Project,
  log: (line: string) => void,
) => Promise<{ close(): Promise<void> } | undefined>

/** The project a server opens at most once (again only after a failure), and what it started beside it. */
export interface ProjectOpener {
  /** Open the project (first call), or the one opened; starts the `beside` services with it. */
  open(): Promise<Project>
  /** Stop the `beside` services, then flush and release the project. Never throws: failures are logged. */
  close(): Promise<void>
}

export interface ProjectOpenerOptions {
  beside?: readonly BesideService[]
  /**
   * What the `beside` services wait for once the project is open (the stdio server: its first
   * answers written, `FoundryStdioTransport.idle`), so they never hold the thread while a client
   * waits. Default: nothing, they start with the project.
   */
  ready?: () => Promise<void>
  log: (line: string) => void
}

export function projectOpener(open: () => Promise<Project>, options: ProjectOpenerOptions): ProjectOpener {
  let opened: Promise<Project> | undefined
  let started: Promise<Array<{ close(): Promise<void> } | undefined>> | undefined
  let closing = false
  const { log } = options
  const beside = options.beside ?? []
  let stop = () => {}
  const stopped = new Promise<void>((resolve) => (stop = resolve))
  const startBeside = async (project: Project) => {
    // `close` does not wait for `ready`: a server closing before it is ready starts nothing.
    await Promise.race([options.ready?.().catch(() => undefined), stopped])
    if (closing) return []
    return Promise.all(beside.map((start) => start(project, log).catch(() => undefined)))
  }
  const begin = () => {
    const opening = open()
    opening.catch(() => {}) // reported to the caller that awaits it
    return opening
  }
  return {
    async open() {
      // One project for every caller; a failed open is tried again by the caller after the one it failed.
      const opening = (opened ??= begin())
      let project: Project
      try {
        project = await opening
      } catch (error) {
        if (opened === opening) opened = undefined
        throw error
      }
      if (beside.length && !closing) started ??= startBeside(project)
      return project
    },
    async close() {
      closing = true
      stop()
      for (const service of (await started) ?? [])
        await service
          ?.close()
          .catch((error: unknown) => log(`closing a service beside the server failed: ${(error as Error).message}`))
      await (await opened?.catch(() => undefined))
        ?.close()
        .catch((error: unknown) => log(`closing the project failed: ${(error as Error).message}`))
    },
  }
}
