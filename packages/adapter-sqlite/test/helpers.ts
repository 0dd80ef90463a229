import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isFoundryError, type FoundryError } from '@foundry/kernel'

const dirs: string[] = []
process.on('exit', () => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

/** A fresh temporary folder, removed when the test process exits. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'foundry-sqlite-'))
  dirs.push(dir)
  return dir
}

let n = 0
/** A path for a new database file in a fresh temporary folder. */
export const tempDb = (name = 'foundry.db') => join(tempDir(), `${n++}-${name}`)

/** The FoundryError `fn` throws (recognised by its brand); anything else is rethrown, nothing thrown fails. */
export async function failure(fn: () => unknown): Promise<FoundryError> {
  try {
    await fn()
  } catch (error) {
    if (isFoundryError(error)) return error
    throw error
  }
  throw new Error('expected a FoundryError, nothing was thrown')
}
