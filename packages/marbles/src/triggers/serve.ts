import type { Kernel } from '@foundry/kernel'
import type { Engine } from '../engine/engine.js'
import type { ScheduleDefinition } from '../define/triggers.js'
import { nextCron } from './cron.js'

export interface TriggerLoop {
  /** Stop every timer; resolves when in-flight polls are done. */
  stop(): Promise<void>
}

export interface TriggerOptions {
  /** Where the loop says what it dispatched or what failed. Default: stderr. */
  log?: (line: string) => void
}

/**
 * `marbles serve`'s loop: every schedule dispatches its workflow when its cron minute or interval
 * comes round; every monitor polls on its interval and dispatches when its condition turns true
 * (once per false → true change). A poll that throws counts as false and is logged.
 */
export function startTriggers(engine: Engine, kernel: Kernel, options: TriggerOptions = {}): TriggerLoop {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`))
  const timers = new Set<ReturnType<typeof setTimeout>>()
  const stop = new AbortController()
  const inflight = new Set<Promise<unknown>>()
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => (timers.delete(timer), fn()), Math.min(ms, 2_147_483_647))
    timers.add(timer)
  }
  const dispatch = (name: string, input: unknown, why: string, idempotencyKey?: string) => {
    const p = engine
      .dispatch(name, input, idempotencyKey === undefined ? {} : { idempotencyKey })
      .then((r) => log(`${why}: ${r.deduplicated ? 'already dispatched' : 'dispatched'} ${name} as ${r.runId}`))
      .catch((error: Error) => log(`${why}: cannot dispatch ${name}: ${error.message}`))
    inflight.add(p)
    void p.finally(() => inflight.delete(p))
  }

  // A tick is a moment every process computes alike (a cron minute, a multiple of `every` since the
  // epoch), and its run is keyed by it: processes serving one state make one run a tick between them.
  for (const s of engine.definitions.schedules.values()) {
    const tick = (after: number) => {
      if (stop.signal.aborted) return
      const at = nextTick(s, Math.max(after, Date.now())) // a timer may fire a little early: never the same tick twice
      later(at - Date.now(), () => {
        if (stop.signal.aborted) return
        const when = new Date(at).toISOString()
        dispatch(s.workflow, s.input, `schedule ${s.name} (tick ${when})`, `schedule:${s.name}:${when}`)
        tick(at)
      })
    }
    tick(Date.now())
  }

  for (const m of engine.definitions.monitors.values()) {
    let was = false
    const poll = async () => {
      if (stop.signal.aborted) return
      let now = false
      let value: unknown
      try {
        value = await m.poll({ kernel, signal: stop.signal })
        now = Boolean(m.when(value))
      } catch (error) {
        log(`monitor ${m.name}: poll failed: ${(error as Error).message}`)
      }
      if (now && !was) dispatch(m.workflow, m.input(value), `monitor ${m.name}`)
      was = now
      later(m.everyMs, () => void track(poll()))
    }
    const track = (p: Promise<unknown>) => (inflight.add(p), void p.finally(() => inflight.delete(p)))
    track(poll())
  }

  return {
    async stop() {
      stop.abort()
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      await Promise.allSettled([...inflight])
    },
  }
}

/** The schedule's next tick strictly after `now`: its next cron minute, or the next multiple of `every` since the epoch. */
export function nextTick(s: Pick<ScheduleDefinition, 'cron' | 'everyMs'>, now: number): number {
  if (s.cron) return nextCron(s.cron, new Date(now)).getTime()
  return (Math.floor(now / s.everyMs!) + 1) * s.everyMs!
}
