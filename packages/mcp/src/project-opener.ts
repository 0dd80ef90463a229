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
  /**
   * Start opening the project, without waiting: the next `open` gets it, or its failure (which that
   * caller reports; the one after tries again).
   */
  prepare(): void
  /** Stop the `beside` services, then flush and release the project. Never throws: failures are logged. */
  close(): Promise<void>
}

export function projectOpener(
  open: () => Promise<Project>,
  options: { beside?: readonly BesideService[]; log: (line: string) => void },
): ProjectOpener {
  let opened: Promise<Project> | undefined
  let started: Promise<Array<{ close(): Promise<void> } | undefined>> | undefined
  let closing = false
  const { log } = options
  const beside = options.beside ?? []
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
      if (beside.length && !closing)
        started ??= Promise.all(beside.map((start) => start(project, log).catch(() => undefined)))
      return project
    },
    prepare() {
      opened ??= begin()
    },
    async close() {
      closing = true
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
