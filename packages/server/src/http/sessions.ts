import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { HttpLimits } from './limits.js'
import type { Principal } from './tokens.js'

/** One client's session: its transport and server, whose token it is, when it was last used and how many of its requests are open. */
export interface Session {
  transport: StreamableHTTPServerTransport
  server: Server
  principal: Principal
  used: number
  /** Requests on the session not yet answered (an open GET stream counts): a session with none is idle. */
  active: number
}

/** A place held for a session being initialized: `fill` once the transport has its id, `cancel` when initialize failed. */
export interface SessionSlot {
  fill(id: string, session: Session): void
  cancel(): void
}

export interface SessionTable {
  get(id: string): Session | undefined
  /**
   * Room for one more session of `principal`, or why there is none. At the token's cap its least
   * recently used idle session is closed; with the table full, the least recently used idle session
   * of the token holding the most is; when that token has no idle session, the answer is a refusal.
   */
  admit(principal: Principal): SessionSlot | string
  /** Forget a session (its transport closed). Idempotent. */
  remove(id: string): void
  /** Close every session unused since `before`. */
  sweep(before: number): void
  /** Close every session. */
  closeAll(): Promise<void>
}

/** The sessions of one HTTP server, bounded in all and per token (see `HttpLimits`). */
export function createSessionTable(limits: Pick<HttpLimits, 'sessions' | 'sessionsPerToken'>): SessionTable {
  const sessions = new Map<string, Session>()
  /** Per token name: its sessions' ids, and places held for sessions being initialized. */
  const owned = new Map<string, { ids: Set<string>; pending: number }>()
  let pending = 0
  const holding = (name: string) => {
    let entry = owned.get(name)
    if (!entry) owned.set(name, (entry = { ids: new Set(), pending: 0 }))
    return entry
  }
  const count = (name: string) => {
    const entry = owned.get(name)
    return entry ? entry.ids.size + entry.pending : 0
  }

  function close(id: string): void {
    const session = sessions.get(id)
    if (!session) return
    remove(id)
    void session.server.close().catch(() => {})
  }

  function remove(id: string): void {
    const session = sessions.get(id)
    if (!session) return
    sessions.delete(id)
    const entry = owned.get(session.principal.name)
    entry?.ids.delete(id)
    if (entry && entry.ids.size === 0 && entry.pending === 0) owned.delete(session.principal.name)
  }

  /** The least recently used idle session of `name`, if any. */
  function oldestIdle(name: string): string | undefined {
    let found: { id: string; used: number } | undefined
    for (const id of owned.get(name)?.ids ?? []) {
      const session = sessions.get(id)!
      if (session.active === 0 && (!found || session.used < found.used)) found = { id, used: session.used }
    }
    return found?.id
  }

  return {
    get: (id) => sessions.get(id),
    admit(principal) {
      const name = principal.name
      if (count(name) >= limits.sessionsPerToken) {
        const victim = oldestIdle(name)
        if (!victim)
          return `Too many sessions: the token ${name} has ${limits.sessionsPerToken} open and none is idle; close one (DELETE) or raise FOUNDRY_HTTP_SESSIONS_PER_TOKEN`
        close(victim)
      } else if (sessions.size + pending >= limits.sessions) {
        const [largest] = [...owned.entries()].sort((a, b) => b[1].ids.size - a[1].ids.size)
        const victim = largest && oldestIdle(largest[0])
        if (!victim)
          return `Busy: ${limits.sessions} sessions are open and none of the largest holder's is idle; close one (DELETE) and retry`
        close(victim)
      }
      const entry = holding(name)
      entry.pending++
      pending++
      let done = false
      const release = () => {
        if (done) return false
        done = true
        entry.pending--
        pending--
        return true
      }
      return {
        fill(id, session) {
          if (!release()) return
          sessions.set(id, session)
          holding(name).ids.add(id)
        },
        cancel() {
          if (release() && entry.ids.size === 0 && entry.pending === 0 && owned.get(name) === entry) owned.delete(name)
        },
      }
    },
    remove,
    sweep(before) {
      for (const [id, session] of sessions) if (session.used < before && session.active === 0) close(id)
    },
    async closeAll() {
      const all = [...sessions.values()]
      sessions.clear()
      owned.clear()
      for (const { server } of all) await server.close().catch(() => {})
    },
  }
}
