import { Command, InvalidArgumentError } from 'commander'
import type { Storage } from '@foundry/kernel'
import { action, journalOption } from '../context.js'

const positive = (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError('--concurrency must be a positive integer.')
  return Number(value)
}

/** config.json's `marbles.retention`: prune finished runs past it now, then every hour; a failure is one stderr line. */
async function pruneEveryHour(
  storage: Storage,
  artifacts: Storage,
  olderThanMs: number,
): Promise<ReturnType<typeof setInterval>> {
  const { pruneRuns } = await import('../../engine/retention.js')
  const prune = () =>
    pruneRuns(storage, { olderThanMs, artifacts })
      .then(
        (removed) =>
          removed.length && process.stderr.write(`marbles serve: pruned ${removed.length} finished runs (retention)\n`),
      )
      .catch((error: Error) => process.stderr.write(`marbles serve: pruning failed: ${error.message}\n`))
  await prune()
  const timer = setInterval(() => void prune(), 3_600_000)
  timer.unref()
  return timer
}

/** `marbles serve`: own the state, execute queued and dispatched runs, resume timers, tick schedules and poll monitors until SIGINT/SIGTERM. */
export function serveCommand(): Command {
  return new Command('serve')
    .description(
      'Own the state: execute dispatched runs, resume suspended ones, tick schedules and poll monitors until Ctrl-C',
    )
    .option(
      '--concurrency <n>',
      'runs executed at once (on PostgreSQL: per workflow); the others wait their turn, in order (default 8; 4 per workflow on PostgreSQL)',
      positive,
    )
    .action(
      action(async (ctx, options: { concurrency?: number }) => {
        const workspace = await ctx.workspace()
        const state = await ctx.state(true)
        const [{ openEngine }, { startTriggers }] = await Promise.all([
          import('../../engine/engine.js'),
          import('../../triggers/serve.js'),
        ])
        // On PostgreSQL, serve is a worker (beside any others) that also ticks the schedules and polls the monitors.
        const queue = await state.queue(true)
        const concurrency = options.concurrency ?? state.concurrency
        const engine = await openEngine({
          storage: state.storage,
          artifacts: state.artifacts,
          kernel: state.kernel,
          definitions: workspace.definitions,
          role: 'owner',
          executeQueued: true,
          ...(concurrency !== undefined && { concurrency }),
          ...(queue && { queue }),
          ...journalOption(ctx.options),
        })
        if (queue) await engine.work(concurrency !== undefined ? { concurrency } : {})
        const d = workspace.definitions
        process.stderr.write(
          `marbles serve: ${state.where} · ${d.runnables.size} workflows and steps, ${d.schedules.size} schedules, ${d.monitors.size} monitors (pid ${process.pid})\n`,
        )
        const triggers = startTriggers(engine, state.kernel)
        const retention =
          state.retentionMs !== undefined
            ? await pruneEveryHour(state.storage, state.artifacts, state.retentionMs)
            : undefined
        const keepAlive = setInterval(() => {}, 1 << 30)
        await new Promise<void>((resolve) => ctx.interrupted.addEventListener('abort', () => resolve(), { once: true }))
        clearInterval(keepAlive)
        clearInterval(retention)
        await triggers.stop()
        await engine.close()
        process.stderr.write('marbles serve: stopped\n')
        return 0
      }),
    )
}
