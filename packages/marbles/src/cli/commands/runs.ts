import { Command, InvalidArgumentError } from 'commander'
import { action } from '../context.js'
import { waitingLine } from '../../watch/render.js'

/** `marbles runs`: recent runs, newest first, with their status. */
export function runsCommand(): Command {
  return new Command('runs')
    .description('List recent runs with their status, newest first')
    .option('--limit <n>', 'how many', (v) => {
      if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError('Not a positive integer.')
      return Number(v)
    }, 20)
    .action(action(async (ctx, options: { limit: number }) => {
      const state = await ctx.state(false)
      const { openEngine } = await import('../../engine/engine.js')
      const engine = await openEngine({ storage: state.storage, kernel: state.kernel, role: 'reader' })
      const runs = await engine.runs({ limit: options.limit })
      if (ctx.options.json) ctx.out(JSON.stringify({ runs }))
      else if (!runs.length) ctx.out(`No runs in ${state.where}.`)
      else
        for (const run of runs)
          ctx.out(`${run.id}  ${run.name}  ${run.waitFor ? 'waiting' : run.status}  ${new Date(run.createdAt).toISOString()}${run.waitFor ? `  (${waitingLine(run.waitFor)})` : ''}${run.rerunOf ? `  (re-runs ${run.rerunOf})` : ''}${run.reason ? `  (${run.reason})` : ''}${run.error ? `  ${run.error.name}: ${run.error.message}` : ''}`)
      await engine.close()
    }))
}
