import { Command, InvalidArgumentError } from 'commander'
import { action } from '../context.js'
import { waitingLine } from '../../watch/render.js'

interface RunsOptions {
  limit: number
  status?: string
  workflow?: string
  since?: string
}

/** `marbles runs`: recent runs, newest first, with their status; narrowed by status, workflow and age. */
export function runsCommand(): Command {
  return new Command('runs')
    .description('List recent runs with their status, newest first')
    .option(
      '--limit <n>',
      'how many',
      (v) => {
        if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError('Not a positive integer.')
        return Number(v)
      },
      20,
    )
    .option(
      '--status <list>',
      'only these statuses, comma-separated (queued, running, suspended, cancel_requested, complete, failed, cancelled)',
    )
    .option('--workflow <name>', 'only runs of this workflow or step (agent runs: agent:<id>)')
    .option('--since <when>', 'only runs created since: an age (2h, 7d) or a date (2026-11-30)')
    .action(
      action(async (ctx, options: RunsOptions) => {
        const { parseSince, parseStatuses } = await import('../../engine/run-search.js')
        const filter = {
          limit: options.limit,
          ...(options.status !== undefined && { status: parseStatuses(options.status) }),
          ...(options.workflow !== undefined && { workflow: options.workflow }),
          ...(options.since !== undefined && { since: parseSince(options.since) }),
        }
        const state = await ctx.state(false)
        const { openEngine } = await import('../../engine/engine.js')
        const engine = await openEngine({ storage: state.storage, kernel: state.kernel, role: 'reader' })
        const runs = await engine.runs(filter)
        if (ctx.options.json) ctx.out(JSON.stringify({ runs }))
        else if (!runs.length)
          ctx.out(
            `No runs in ${state.where}${options.status || options.workflow || options.since ? ' match these filters' : ''}.`,
          )
        else
          for (const run of runs)
            ctx.out(
              `${run.id}  ${run.name}  ${run.waitFor ? 'waiting' : run.status}  ${new Date(run.createdAt).toISOString()}${run.waitFor ? `  (${waitingLine(run.waitFor)})` : ''}${run.rerunOf ? `  (re-runs ${run.rerunOf})` : ''}${run.reason ? `  (${run.reason})` : ''}${run.error ? `  ${run.error.name}: ${run.error.message}` : ''}`,
            )
        await engine.close()
      }),
    )
}
