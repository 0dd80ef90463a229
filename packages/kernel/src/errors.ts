/** The closed set of error codes. Callers branch on `code`, never on the message. */
export type FoundryErrorCode =
  | 'INVALID_INPUT' // the caller sent something the contract forbids; the message names the field and the fix
  | 'NOT_FOUND' // the named record does not exist; the message lists what does
  | 'CONFLICT' // the write would contradict what is stored (e.g. a newer database schema)
  | 'CORRUPT' // a stored record cannot be read back; the message names the record
  | 'UNSUPPORTED' // the adapter lacks the ability the operation needs
  | 'UNAVAILABLE' // the backing store cannot be reached or locked in time

export const ERROR_CODES: readonly FoundryErrorCode[] = [
  'INVALID_INPUT',
  'NOT_FOUND',
  'CONFLICT',
  'CORRUPT',
  'UNSUPPORTED',
  'UNAVAILABLE',
]

/**
 * The brand every FoundryError carries. Recognition goes by the brand and the code, never by
 * `instanceof`: an adapter bundled with its own copy of the kernel throws errors of another class
 * object, and they are still Foundry's errors.
 */
const BRAND = Symbol.for('foundry.error')

/** The one error type Foundry throws. `message` is one line a user can act on. */
export class FoundryError extends Error {
  override readonly name = 'FoundryError'
  readonly code: FoundryErrorCode
  readonly [BRAND] = true

  constructor(code: FoundryErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
}

/** True for an error any copy of the kernel threw (and, with `code`, of that code). */
export function isFoundryError(error: unknown, code?: FoundryErrorCode): error is FoundryError {
  if (typeof error !== 'object' || error === null || (error as Record<symbol, unknown>)[BRAND] !== true) return false
  const found = (error as { code?: unknown }).code
  return (
    typeof found === 'string' &&
    (ERROR_CODES as readonly string[]).includes(found) &&
    (code === undefined || found === code)
  )
}

/** One clear line for any thrown value: the message of a FoundryError, or a generic description. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message
  return String(error)
}
