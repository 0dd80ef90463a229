import { FoundryError } from '@foundry/kernel'

/** What an SQLite failure means for the caller, by result code (better-sqlite3 puts the name in `code`). */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PERM|AUTH|PROTOCOL|NOLFS)/
const CORRUPT = /^SQLITE_(CORRUPT|NOTADB)/

export function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined
}

export const isBusy = (error: unknown) => sqliteCode(error)?.startsWith('SQLITE_BUSY') ?? false

/**
 * Turn an SQLite error into a FoundryError naming the file and what to do: CORRUPT for a damaged or
 * foreign file, UNAVAILABLE for locks, I/O, permissions and a full disk. Anything else (a bug, a
 * FoundryError thrown by a caller) is returned unchanged.
 */
export function translate(error: unknown, file: string): unknown {
  const code = sqliteCode(error)
  if (!code) return error
  const detail = `${(error as Error).message} [${code}]`
  if (CORRUPT.test(code))
    return new FoundryError(
      'CORRUPT',
      `${file} is not a readable SQLite database (${detail}): restore it from a backup, or move it aside and import the folder layout again`,
      { cause: error },
    )
  if (code.startsWith('SQLITE_READONLY'))
    return new FoundryError(
      'UNAVAILABLE',
      `${file} is read-only here (${detail}): this process cannot write the file or its folder; reads work, writes need write access to both`,
      { cause: error },
    )
  if (UNAVAILABLE.test(code))
    return new FoundryError(
      'UNAVAILABLE',
      `${file} cannot be used right now (${detail}): check that the disk has space and the file is writable, then retry`,
      { cause: error },
    )
  return error
}

/** Run `fn`, rethrowing SQLite failures as FoundryErrors about `file`. */
export function guard<T>(file: string, fn: () => T): T {
  try {
    return fn()
  } catch (error) {
    throw translate(error, file)
  }
}
