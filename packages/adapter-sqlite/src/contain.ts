import { lstatSync, readlinkSync, realpathSync } from 'node:fs'
import { dirname, isAbsolute, relative, resolve } from 'node:path'
import { FoundryError } from '@foundry/kernel'

/**
 * The database file a config option names, absolute. A relative `file` must stay inside `root`, both
 * as written (`../x.db` is refused: INVALID_INPUT) and after links (CORRUPT); an absolute one is the
 * config author's explicit choice of a place outside the project and is taken as written.
 */
export function configuredPath(option: string, file: string, root: string): string {
  if (isAbsolute(file)) return resolve(file)
  const full = resolve(root, file)
  if (!isInside(root, full))
    throw new FoundryError(
      'INVALID_INPUT',
      `${option} "${file}" is outside the project ${root}; use a path inside it, or an absolute path to keep the database elsewhere on purpose.`,
    )
  return insideAfterLinks(full, root)
}

/** `file` (absolute, inside `base` as written), checked to stay inside `base` after every link on its way. Throws CORRUPT. */
export function insideAfterLinks(file: string, base: string): string {
  let realBase: string
  try {
    realBase = realpathSync.native(base)
  } catch {
    return file // nothing exists yet, so no link can lead out
  }
  // The deepest part of the path that exists: the file itself, or the folder it will be made in.
  let existing = file
  while (!lstatSync(existing, { throwIfNoEntry: false })) {
    const parent = dirname(existing)
    if (parent === existing) return file
    existing = parent
  }
  let real: string
  try {
    real = realpathSync.native(existing)
  } catch {
    // A link to something missing: SQLite would create its target.
    real = resolve(dirname(existing), readlinkSync(existing))
    if (isInside(realBase, real))
      throw new FoundryError(
        'CORRUPT',
        `${existing} is a link to nothing; remove it so Foundry can create the database there.`,
      )
  }
  if (!isInside(realBase, real))
    throw new FoundryError(
      'CORRUPT',
      `${existing} leads outside ${base} (to ${real}); Foundry does not follow links out of the project. Replace the link with the file or folder itself.`,
    )
  return file
}

function isInside(base: string, path: string): boolean {
  const rel = relative(resolve(base), path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}
