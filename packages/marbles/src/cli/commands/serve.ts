import { Command, InvalidArgumentError } from 'commander'
import { action, journalOption } from '../context.js'

const positive = (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('--concurrency must be a positive integer.')
  return Number(value)
}

/** `marbles serve`: own the state, execute queued and dispatched runs, resume timers, tick schedules and poll monitors until SIGINT/SIGTERM. */
export function serveCommand(): Command {
  return new Command('serve')
    .description('Own the state: execute dispatched runs, resume suspended ones, tick schedules and poll monitors until Ctrl-C')
    .option('--concurrency <n>', 'runs executed at once (on PostgreSQL: per workflow); the others wait their turn, in order (default 8; 4 per workflow on PostgreSQL)', positive)
    .action(action(async (ctx, options: { concurrency?: number }) => {
      const workspace = await ctx.workspace()
      const state = await ctx.state(true)
      const [{ openEngine }, { startTriggers }] = await Promise.all([import('../../engine/engine.js'), import('../../triggers/serve.js')])
      // On PostgreSQL, serve is a worker (beside any others) that also ticks the schedules and polls the monitors.
      const queue = await state.queue(true)
      const engine = await openEngine({ storage: state.storage, artifacts: state.artifacts, kernel: state.kernel, definitions: workspace.definitions, role: 'owner', executeQueued: true, ...(options.concurrency !== undefined && { concurrency: options.concurrency }), ...(queue && { queue }), ...journalOption(ctx.options) })
      if (queue) await engine.work(options.concurrency !== undefined ? { concurrency: options.concurrency } : {})
      const d = workspace.definitions
      process.stderr.write(`marbles serve: ${state.where} · ${d.runnables.size} workflows and steps, ${d.schedules.size} schedules, ${d.monitors.size} monitors (pid ${process.pid})\n`)
      const triggers = startTriggers(engine, state.kernel)
      const keepAlive = setInterval(() => {}, 1 << 30)
      await new Promise<void>((resolve) => ctx.interrupted.addEventListener('abort', () => resolve(), { once: true }))
      clearInterval(keepAlive)
      await triggers.stop()
      await engine.close()
      process.stderr.write('marbles serve: stopped\n')
      return 0
    }))
}
