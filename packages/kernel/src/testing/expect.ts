import { isFoundryError, type FoundryError, type FoundryErrorCode } from '../errors.js'

/** Assertions without a runner or `node:assert`, so the suites run under uvu, node:test, vitest or bun. */
export class SuiteAssertionError extends Error {
  override readonly name = 'SuiteAssertionError'
}

export function ok(value: unknown, message: string): asserts value {
  if (!value) throw new SuiteAssertionError(message)
}

export function equal<T>(actual: T, expected: T, message: string): void {
  const a = canonical(actual)
  const b = canonical(expected)
  if (a !== b) throw new SuiteAssertionError(`${message}\n  expected: ${b}\n  actual:   ${a}`)
}

export async function rejects(
  fn: () => Promise<unknown>,
  code: FoundryErrorCode,
  message: string,
): Promise<FoundryError> {
  try {
    await fn()
  } catch (error) {
    if (isFoundryError(error, code)) return error
    throw new SuiteAssertionError(
      `${message}: expected a FoundryError ${code}, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    )
  }
  throw new SuiteAssertionError(`${message}: expected a FoundryError ${code}, but nothing was thrown`)
}

/** JSON with sorted keys: deep equality for plain data. */
function canonical(value: unknown): string {
  return (
    JSON.stringify(value, (_k, v) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
        : v,
    ) ?? 'undefined'
  )
}
