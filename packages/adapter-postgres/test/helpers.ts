import { isFoundryError, type FoundryError } from '@foundry/kernel'
import type { Test } from 'uvu'
import { createDatabase, startTestDatabase, type TestDatabase } from '../src/testing.js'

/**
 * A real PostgreSQL server for one test file (embedded, or FOUNDRY_TEST_DATABASE_URL's), started
 * before the file's tests and stopped after them; `fresh()` is an empty database on it.
 */
export function useServer(test: Test) {
  let server: TestDatabase | undefined
  test.before(async () => {
    server = await startTestDatabase()
  })
  test.after(async () => {
    await server?.stop()
  })
  return {
    get url() {
      if (!server) throw new Error('the test server is not started yet')
      return server.url
    },
    fresh: () => createDatabase(server!.url),
  }
}

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
