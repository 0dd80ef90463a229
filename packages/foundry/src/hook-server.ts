import type { Project } from '@foundry/project'

/** What `serveStdio` closes at the end: the hook server it started, if any. */
export interface StartedHooks {
  close(): Promise<void>
}

/**
 * Answer the project's per-prompt hooks from this process (`serveHooks` of `@foundry/hooks`), so
 * `foundry-hook prompt-context` and `session-start` skip loading the kernel and opening the index.
 * Called once the project is open and the requests waiting for it are answered (a new session's
 * first question is not kept waiting); `@foundry/hooks` loads only then, never before `initialize`
 * is answered. Resolves `undefined` when another live server already answers for the project (a second
 * session on it) and when listening fails: the failure is one line in `log`, never an error of the
 * MCP server, and the hooks then run in their own processes.
 */
export async function startHookServer(
  project: Project,
  log: (line: string) => void,
): Promise<StartedHooks | undefined> {
  try {
    const { serveHooks } = await import('@foundry/hooks')
    return await serveHooks(project)
  } catch (error) {
    log(`hook server not started (hooks run in their own processes): ${(error as Error)?.message ?? String(error)}`)
    return undefined
  }
}
