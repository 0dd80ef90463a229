import type { ServerResponse } from 'node:http'
import type { Storage } from '@foundry/kernel'
import type { CollectionName } from '@foundry/kernel/adapter'
import { SECURITY_HEADERS } from './http.js'
import { RUNS } from './runs.js'

/** What changed: a collection (`facts`, `marbles.runs`) or a log (a run's journal). */
export type FeedChange = { collection: string } | { log: string }

/** One feed of storage changes per console, shared by every open event stream. */
export interface ChangeFeed {
  /** Be told of changes until the returned function is called. `logs` are the logs this listener follows. */
  subscribe(listener: (change: FeedChange) => void, logs?: readonly string[]): () => void
  /** Stop watching (the console closes). */
  close(): void
}

/** How often a storage without change notifications is polled while someone listens: well inside the 500 ms a page may lag. */
export const POLL_MS = 150
const WATCHED: readonly CollectionName[] = ['facts', RUNS]

/**
 * Changes from `storage.onChange` when the storage has it (PostgreSQL's notifications), else from
 * polling `revision()` of facts and runs and `logEnd()` of the followed logs, only while at least
 * one listener is subscribed. A log's first poll always reports a change, so a listener that read
 * the log before subscribing catches up on anything appended in between.
 */
export function createChangeFeed(storage: Storage, pollMs = POLL_MS): ChangeFeed {
  const listeners = new Map<(change: FeedChange) => void, readonly string[]>()
  let stop: (() => void) | undefined
  const emit = (change: FeedChange) => {
    for (const [listener, logs] of listeners) if ('collection' in change || logs.includes(change.log)) listener(change)
  }

  function start(): () => void {
    if (storage.onChange) return storage.onChange(emit)
    const last = new Map<string, string | number>()
    let busy = false
    const tick = async () => {
      if (busy) return
      busy = true
      try {
        for (const collection of WATCHED) {
          const revision = await storage.revision(collection)
          if (last.has(collection) && last.get(collection) !== revision) emit({ collection })
          last.set(collection, revision)
        }
        for (const log of new Set([...listeners.values()].flat())) {
          const end = await storage.logEnd(log)
          if (last.get(`log:${log}`) !== end) emit({ log })
          last.set(`log:${log}`, end)
        }
      } catch {
        // A failed poll (a storage briefly busy) is tried again on the next tick.
      } finally {
        busy = false
      }
    }
    const timer = setInterval(() => void tick(), pollMs)
    timer.unref?.()
    void tick()
    return () => clearInterval(timer)
  }

  return {
    subscribe(listener, logs = []) {
      listeners.set(listener, logs)
      stop ??= start()
      return () => {
        listeners.delete(listener)
        if (!listeners.size) stop?.(), (stop = undefined)
      }
    },
    close() {
      listeners.clear()
      stop?.()
      stop = undefined
    },
  }
}

/** An open server-sent-events answer. */
export interface EventStream {
  send(event: string, data: unknown): void
  /** Resolves when the client goes away. */
  readonly closed: Promise<void>
}

/** Start a server-sent-events answer on `res`, with a comment every 15 s to keep proxies from closing it. */
export function openEventStream(res: ServerResponse): EventStream {
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  })
  res.write(': open\n\n')
  const ping = setInterval(() => res.write(': ping\n\n'), 15_000)
  ping.unref?.()
  const closed = new Promise<void>((resolve) => res.on('close', () => (clearInterval(ping), resolve())))
  return {
    send(event, data) {
      if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    },
    closed,
  }
}
