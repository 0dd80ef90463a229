import type { Storage } from '@foundry/kernel'

/** A conversation an agent run can continue: `{ id, model, provider }` as dispatch and get_run spell it. */
export interface SessionRef {
  id: string
  provider: string
  model: string
}

/** What Marbles keeps of a session in the open collection `marbles.sessions`. */
export interface SessionRecord extends SessionRef {
  /** The harness's own id (Claude Code's session, Codex's thread, pi's session); absent before the first run ends. */
  native?: string
  /** The declared agent the conversation is with; a continuation keeps it. */
  agent?: string
  lastRun: string
  updatedAt: number
}

export const SESSIONS = 'marbles.sessions'

declare module '@foundry/kernel' {
  interface Collections {
    'marbles.sessions': SessionRecord
  }
}

/**
 * Sessions of one host: the records, and which are in use. One active run per session: a second
 * dispatch on a session whose run is still going is refused (the conversation would fork).
 */
export function createSessions(storage: Storage) {
  const busy = new Map<string, string>()
  return {
    get: (id: string) => storage.get(SESSIONS, id),
    save: (record: SessionRecord) => storage.put(SESSIONS, record.id, record, { durability: 'relaxed' }),
    /** The run using the session now, or undefined. */
    user: (id: string) => busy.get(id),
    /** Mark the session in use by `runId`; false when another run holds it. */
    claim(id: string, runId: string): boolean {
      if (busy.has(id)) return false
      busy.set(id, runId)
      return true
    },
    release(id: string, runId: string): void {
      if (busy.get(id) === runId) busy.delete(id)
    },
  }
}
export type Sessions = ReturnType<typeof createSessions>
