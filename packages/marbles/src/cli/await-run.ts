import type { Engine } from '../engine/engine.js'
import { isTerminal } from '../journal/records.js'
import type { MarblesState } from '../state.js'
import { EXIT } from '../watch/watch.js'
import type { CommandContext } from './context.js'
import { printOutcome } from './commands/watch.js'

/**
 * Wait for a run this command handed to `engine` (executed here when it owns the state, else by the
 * owner), print how it ended, and return the exit code `watch` would: 0 complete, 1 failed,
 * 2 cancelled, 3 suspended (on a timer or waiting for a signal), 130 interrupted while waiting.
 */
export async function awaitRun(
  ctx: CommandContext,
  engine: Engine,
  state: MarblesState,
  runId: string,
  queued = false,
): Promise<number> {
  if (queued) process.stderr.write(`run ${runId} is queued for a worker (marbles worker) on ${state.where}\n`)
  else if (!engine.owner)
    process.stderr.write(`run ${runId} is executed by the engine owning ${state.where} (pid ${engine.holder?.pid})\n`)
  // Ctrl-C: this process executes the run, so the run is cancelled; a run another engine executes carries on.
  ctx.interrupted.addEventListener(
    'abort',
    () => void (engine.owner ? engine.cancel(runId).catch(() => {}) : undefined),
    { once: true },
  )
  const info = await engine.settled(runId, engine.owner ? undefined : ctx.interrupted)
  await drain(engine)
  if (!info || !(isTerminal(info.status) || info.status === 'suspended')) return EXIT.interrupted
  printOutcome(ctx, info)
  return EXIT[info.status as 'complete' | 'failed' | 'cancelled' | 'suspended']
}

/** Runs other processes handed this engine while it ran: let them settle before the lease goes. */
export async function drain(engine: { active(): string[]; settled(id: string): Promise<unknown> }): Promise<void> {
  for (let ids = engine.active(); ids.length; ids = engine.active())
    await Promise.all(ids.map((id) => engine.settled(id)))
}
