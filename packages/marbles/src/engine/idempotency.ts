import { createHash } from 'node:crypto'
import { FoundryError, type Storage } from '@foundry/kernel'

/** Idempotency keys: `marbles.keys/<sha256 of name and key>` names the run a keyed dispatch made. */
export const KEYS = 'marbles.keys'

/** How long a key names its run: a dispatch of the same workflow with the same key within it returns that run (24 h). */
export const IDEMPOTENCY_WINDOW_MS = 86_400_000

/** The longest key accepted. */
export const KEY_MAX_CHARS = 200

/** The run a keyed dispatch made, and when. */
export interface KeyEntry {
  runId: string
  name: string
  at: number
}

declare module '@foundry/kernel' {
  interface Collections {
    'marbles.keys': KeyEntry
  }
}

/** INVALID_INPUT unless `key` is a string of 1 to 200 characters. */
export function assertIdempotencyKey(key: unknown, field = 'idempotencyKey'): void {
  if (typeof key !== 'string' || key.length < 1 || key.length > KEY_MAX_CHARS)
    throw new FoundryError(
      'INVALID_INPUT',
      `${field} must be a string of 1 to ${KEY_MAX_CHARS} characters (the same key within 24 h returns the same run)`,
    )
}

/**
 * Inside the storage's exclusive section (across every process sharing it): the run `key` names for
 * `name` when it was made within the window, else a new one from `create`, recorded under the key.
 */
export async function dispatchOnce(
  storage: Storage,
  name: string,
  key: string,
  create: () => Promise<string>,
): Promise<{ runId: string; created: boolean }> {
  const id = createHash('sha256').update(`${name}\0${key}`).digest('hex')
  return storage.exclusive(async () => {
    const now = Date.now()
    const found = await storage.get(KEYS, id)
    if (found && now - found.at < IDEMPOTENCY_WINDOW_MS) return { runId: found.runId, created: false }
    const runId = await create()
    await storage.put(KEYS, id, { runId, name, at: now })
    return { runId, created: true }
  })
}
