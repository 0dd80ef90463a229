import { resolve } from 'node:path'
import { FoundryError } from '@foundry/kernel'
import { explicitRoot, findProject, type FindOptions } from './find.js'

/**
 * The root of the project `options` name, found like git finds a repository: `--root` or
 * `FOUNDRY_ROOT` must hold `.foundry/` themselves; otherwise the nearest `.foundry/` at or above
 * `cwd` (then `fallback`). Throws NOT_FOUND "no Foundry project at <dir> (run foundry init)" when
 * there is none; creates nothing.
 */
export function locateProject(options: FindOptions = {}): string {
  const found = findProject(options)
  if (found) return found
  throw notFound(explicitRoot(options) ?? resolve(options.cwd ?? process.cwd()))
}

export function notFound(dir: string): FoundryError {
  return new FoundryError('NOT_FOUND', `no Foundry project at ${dir} (run foundry init)`)
}
