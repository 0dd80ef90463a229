import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDatabase } from '@foundry/adapter-postgres/testing'
import { BUILTIN_STORAGES } from '@foundry/project'

/** A project of its own (a fresh database on `serverUrl`) whose storage is PostgreSQL, as config.json names it. */
export async function pgProject(serverUrl: string): Promise<string> {
  const url = await createDatabase(serverUrl)
  const root = mkdtempSync(join(tmpdir(), 'marbles-test-pg-'))
  mkdirSync(join(root, '.foundry'))
  // The adapter by path until the project's registry lists "postgres" itself.
  const adapters =
    'postgres' in BUILTIN_STORAGES
      ? {}
      : { adapters: [createRequire(import.meta.url).resolve('@foundry/adapter-postgres')] }
  writeFileSync(
    join(root, '.foundry', 'config.json'),
    JSON.stringify({ storage: { kind: 'postgres', url }, ...adapters }),
  )
  return root
}
