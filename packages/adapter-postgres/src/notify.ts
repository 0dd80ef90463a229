import type { StorageChange } from '@foundry/kernel/adapter'
import pg from 'pg'
import { CHANGE_CHANNEL } from './schema.js'

/**
 * One dedicated connection LISTENing on the change channel, reconnecting with backoff when it drops.
 * It tells `onChange` listeners of every committed write (this process's included: the writer's
 * session is not the listener's), and keeps `connected` true only while no notification can have
 * been missed; a cache that relies on it is cleared on every (re)connection.
 */
export interface Listener {
  /** True while LISTEN is active: a notification for every later commit will arrive. */
  readonly connected: boolean
  /** Start connecting (idempotent); resolves after the first attempt, connected or not. */
  start(): Promise<void>
  subscribe(fn: (change: StorageChange) => void): () => void
  close(): Promise<void>
}

export interface ListenerOptions {
  url: string
  /** Every notification, and `undefined` whenever the connection is (re)established or lost. */
  onEvent(change: StorageChange | undefined): void
}

const MAX_BACKOFF = 5_000

/** Whether the client's socket keeps the process alive. */
function holdOpen(client: pg.Client, hold: boolean): void {
  const stream = (client as unknown as { connection?: { stream?: { ref?(): void; unref?(): void } } }).connection
    ?.stream
  if (hold) stream?.ref?.()
  else stream?.unref?.()
}
/**
 * How often a connected listener proves its connection alive, and how long the proof may take. A
 * connection that died without a word (a network partition sends no FIN) would otherwise keep a
 * revision cache trusted while notifications no longer arrive: this bounds that to two periods.
 */
const HEARTBEAT_MS = 5_000

export function createListener(options: ListenerOptions): Listener {
  const subscribers = new Set<(change: StorageChange) => void>()
  let client: pg.Client | undefined
  let connected = false
  let closed = false
  let starting: Promise<void> | undefined
  let retry: NodeJS.Timeout | undefined
  let heartbeat: NodeJS.Timeout | undefined
  let beating = false
  let backoff = 100

  function dispatch(change: StorageChange | undefined) {
    options.onEvent(change)
    if (change)
      for (const fn of subscribers) {
        try {
          fn(change)
        } catch {
          // A listener's failure is its own; the others still hear of the change.
        }
      }
  }

  function beat() {
    const which = client
    if (!which || !connected || beating) return
    beating = true
    const deadline = setTimeout(() => lost(which), HEARTBEAT_MS)
    deadline.unref()
    which.query('SELECT 1').then(
      () => {
        clearTimeout(deadline)
        beating = false
      },
      () => {
        clearTimeout(deadline)
        beating = false
        lost(which)
      },
    )
  }

  function lost(which: pg.Client) {
    if (client !== which) return
    client = undefined
    connected = false
    beating = false
    dispatch(undefined)
    which.end().catch(() => undefined)
    if (closed) return
    retry = setTimeout(() => void connect(), backoff)
    retry.unref()
    backoff = Math.min(MAX_BACKOFF, backoff * 2)
  }

  async function connect(): Promise<void> {
    if (closed) return
    const next = new pg.Client({ connectionString: options.url, keepAlive: true })
    client = next
    next.on('error', () => lost(next))
    next.on('end', () => lost(next))
    next.on('notification', (message) => {
      if (message.channel !== CHANGE_CHANNEL || !message.payload) return
      const { payload } = message
      if (payload.startsWith('c:')) dispatch({ collection: payload.slice(2) as never })
      else if (payload.startsWith('l:')) dispatch({ log: payload.slice(2) })
    })
    try {
      await next.connect()
      await next.query(`LISTEN ${CHANGE_CHANNEL}`)
      if (client !== next) return
      // The connection only waits for notifications: it must not keep a finished process alive.
      holdOpen(next, false)
      connected = true
      backoff = 100
      dispatch(undefined)
      if (!heartbeat) {
        heartbeat = setInterval(beat, HEARTBEAT_MS)
        heartbeat.unref()
      }
    } catch {
      lost(next)
    }
  }

  return {
    get connected() {
      return connected
    },
    start() {
      return (starting ??= connect())
    },
    subscribe(fn) {
      subscribers.add(fn)
      return () => void subscribers.delete(fn)
    },
    async close() {
      closed = true
      if (retry) clearTimeout(retry)
      if (heartbeat) clearInterval(heartbeat)
      const open = client
      client = undefined
      connected = false
      if (open) {
        // Ending waits for the socket to close: held open meanwhile, or a process with nothing else to do exits mid-await.
        holdOpen(open, true)
        await open.end().catch(() => undefined)
      }
    },
  }
}
