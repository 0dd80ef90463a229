import { Command } from 'commander'
import { action, journalOption } from '../context.js'

/** `marbles serve`: own the state, execute queued and dispatched runs, resume timers, tick schedules and poll monitors until SIGINT/SIGTERM. */
export function serveCommand(): Command {
  return new Command('serve')
    .description('Own the state: execute dispatched runs, resume suspended ones, tick schedules and poll monitors until Ctrl-C')
    .action(action(async (ctx) => {
      const workspace = await ctx.workspace()
      const state = await ctx.state(true)
      const [{ openEngine }, { startTriggers }] = await Promise.all([import('../../engine/engine.js'), import('../../triggers/serve.js')])
      // On PostgreSQL, serve is a worker (beside any others) that also ticks the schedules and polls the monitors.
      const queue = await state.queue(true)
      const engine = await openEngine({ storage: state.storage, artifacts: state.artifacts, kernel: state.kernel, definitions: workspace.definitions, role: 'owner', executeQueued: true, ...(queue && { queue }), ...journalOption(ctx.options) })
      if (queue) await engine.work()
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
