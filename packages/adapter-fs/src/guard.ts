import { lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs'
import { basename, dirname, join, sep } from 'node:path'
import { FoundryError } from '@foundry/kernel'

/**
 * Keeps every path inside the data folder. Keys are checked with `assertKey` before they become
 * paths, so only links can lead out: each access resolves the real path (one `realpath` call, about
 * 20 µs) and refuses anything outside the folder's own real path. The folder itself may be a link.
 */
export interface Guard {
  /** The folder nothing may leave. */
  readonly base: string
  /** The real path of an existing file or folder, or undefined when there is none. Throws CORRUPT when it leads outside. */
  existing(path: string): string | undefined
  /**
   * Make sure `dir` exists as a folder inside the data folder (creating it and its parents) and
   * return its real path. Throws CORRUPT when it leads outside, CONFLICT when it is a file.
   */
  folder(dir: string): string
  /** Throws CORRUPT when `real` (a resolved path) is outside the data folder. */
  check(path: string, real: string): void
}

export function createGuard(base: string): Guard {
  let realBase: string | undefined

  const baseReal = (): string | undefined => {
    if (realBase !== undefined) return realBase
    try {
      return (realBase = realpathSync.native(base))
    } catch (error) {
      if (isMissing(error)) return undefined
      throw error
    }
  }

  const check = (path: string, real: string) => {
    const root = baseReal()
    if (root !== undefined && (real === root || real.startsWith(root + sep))) return
    throw new FoundryError(
      'CORRUPT',
      `${path} leads outside ${base} (to ${real}); Foundry does not follow links out of its folder. Replace the link with the file or folder itself.`,
    )
  }

  const existing = (path: string): string | undefined => {
    if (baseReal() === undefined) return undefined
    let real: string
    try {
      real = realpathSync.native(path)
    } catch (error) {
      if (isMissing(error)) return undefined
      if ((error as NodeJS.ErrnoException).code === 'ELOOP')
        throw new FoundryError(
          'CORRUPT',
          `${path} is a link that loops back on itself; replace it with the file itself.`,
          { cause: error },
        )
      throw error
    }
    check(path, real)
    return real
  }

  const folder = (dir: string): string => {
    const found = existing(dir)
    if (found !== undefined) {
      if (statSync(found).isDirectory()) return found
      throw new FoundryError(
        'CONFLICT',
        `${dir} is a file, so nothing can be stored under it: a name cannot be both a record and a folder of records.`,
      )
    }
    if (dir === base) {
      mkdirSync(base, { recursive: true })
      return baseReal()!
    }
    const parent = folder(dirname(dir))
    try {
      mkdirSync(join(parent, basename(dir)))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const made = existing(dir)
    if (made !== undefined) return made
    // It exists (mkdir said so) but does not resolve: a link to nowhere.
    const link = lstatSync(dir, { throwIfNoEntry: false })
    throw new FoundryError(
      'CORRUPT',
      `${dir} is ${link?.isSymbolicLink() ? 'a link to a missing folder' : 'not a folder'}; remove it so Foundry can create the folder.`,
    )
  }

  return { base, existing, folder, check }
}

/**
 * One guard over several folders (the data folder, and a cache folder kept elsewhere): each path is
 * checked by the guard of the folder it names, and a path in none of them is refused.
 */
export function routeGuards(guards: Guard[]): Guard {
  const of = (path: string): Guard => {
    const found = guards.find((g) => path === g.base || path.startsWith(g.base + sep))
    if (!found)
      throw new FoundryError(
        'CORRUPT',
        `${path} is outside ${guards.map((g) => g.base).join(' and ')}; Foundry reads and writes only there.`,
      )
    return found
  }
  return {
    base: guards[0]!.base,
    existing: (path) => of(path).existing(path),
    folder: (dir) => of(dir).folder(dir),
    check: (path, real) => of(path).check(path, real),
  }
}

export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return code === 'ENOENT' || code === 'ENOTDIR'
}
