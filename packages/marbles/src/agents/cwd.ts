import { existsSync, realpathSync, statSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'

/**
 * An agent's working folder: `cwd` resolved against the workspace root (default: the root). It must
 * exist and stay inside the root, symbolic links followed; anything else throws one line naming `cwd`.
 */
export function resolveCwd(root: string, cwd: string | undefined): string {
  const base = realpathSync(root)
  const full = resolve(base, cwd ?? '.')
  if (!existsSync(full) || !statSync(full).isDirectory())
    throw new Error(`cwd ${JSON.stringify(cwd)} is not a folder inside the workspace root ${base}`)
  const real = realpathSync(full)
  const rel = relative(base, real)
  if (rel.startsWith('..') || isAbsolute(rel))
    throw new Error(
      `cwd ${JSON.stringify(cwd)} resolves to ${real}, outside the workspace root ${base}: give a folder inside it`,
    )
  return real
}
