import { existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import type { DoctorFinding } from '@foundry/kernel/adapter'

/**
 * `foundry doctor` on an SQLite file: `PRAGMA integrity_check`, reported as it is. A failing check
 * is reported, never "fixed" (restore a backup, or `foundry export` what still reads). `fix` changes
 * nothing here: SQLite recovers its own journal when the file is next opened.
 */
export function inspectDatabase(file: string): DoctorFinding[] {
  if (!existsSync(file))
    return [{ status: 'note', check: 'integrity', path: file, message: 'no database yet (created at the first write)' }]
  let db: Database.Database | undefined
  try {
    db = new Database(file, { readonly: true, fileMustExist: true })
    const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>
    const lines = rows.map((r) => r.integrity_check)
    if (lines.length === 1 && lines[0] === 'ok')
      return [{ status: 'note', check: 'integrity', path: file, message: 'PRAGMA integrity_check: ok' }]
    return [
      {
        status: 'unfixable',
        check: 'integrity',
        path: file,
        message: `PRAGMA integrity_check failed: ${lines.slice(0, 5).join('; ')}${lines.length > 5 ? ` (and ${lines.length - 5} more)` : ''}; restore a backup`,
      },
    ]
  } catch (error) {
    return [
      {
        status: 'unfixable',
        check: 'integrity',
        path: file,
        message: `cannot check the database: ${(error as Error).message}`,
      },
    ]
  } finally {
    db?.close()
  }
}
