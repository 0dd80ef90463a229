import { statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/** The data folder under a project root. */
export const DATA_FOLDER = '.foundry'

/** The nearest folder at or above `start` holding a `.foundry` folder; `undefined` when there is none. */
export function findProjectRoot(start: string): string | undefined {
  let dir = resolve(start)
  for (;;) {
    if (isDirectory(join(dir, DATA_FOLDER))) return dir
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

/**
 * The project a hook works on: `FOUNDRY_ROOT` when set (taken as is), else the nearest `.foundry`
 * at or above the event's `cwd`, else at or above `CLAUDE_PROJECT_DIR`. `undefined` means this is
 * not a Foundry project, and every hook then does nothing.
 */
export function locateProject(cwd: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.FOUNDRY_ROOT) return resolve(env.FOUNDRY_ROOT)
  return findProjectRoot(cwd) ?? (env.CLAUDE_PROJECT_DIR ? findProjectRoot(env.CLAUDE_PROJECT_DIR) : undefined)
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
