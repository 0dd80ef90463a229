import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDatabase, startTestDatabase, type TestDatabase } from '@foundry/adapter-postgres/testing'
import { BUILTIN_STORAGES } from '@foundry/project'
import type { Test } from 'uvu'
import type { start } from './helpers.js'

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

/**
 * A test file's PostgreSQL server and child processes: the server starts before the file's first test and
 * stops after its last; the children a test pushed are killed (a stopped one too) and awaited after it.
 */
export function pgSuite(suite: Test): { url: () => string; children: Array<ReturnType<typeof start>> } {
  let server: TestDatabase | undefined
  const children: Array<ReturnType<typeof start>> = []
  suite.before(async () => {
    server = await startTestDatabase()
  })
  suite.after.each(async () => {
    for (const c of children.splice(0)) {
      if (c.child.signalCode === 'SIGSTOP' || c.child.exitCode === null) c.child.kill('SIGKILL')
      await c.exited
    }
  })
  suite.after(async () => {
    await server?.stop()
  })
  return {
    url: () => {
      if (!server) throw new Error('the test database has not started')
      return server.url
    },
    children,
  }
}
