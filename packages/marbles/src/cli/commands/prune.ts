import { Command } from 'commander'
import { action } from '../context.js'

interface PruneCommandOptions {
  olderThan?: string
  status?: string
}

/** `marbles prune`: remove finished runs, their journals and artifacts past the retention (never a queued, running or suspended one). */
export function pruneCommand(): Command {
  return new Command('prune')
    .description(
      'Remove finished runs (complete, failed, cancelled), their journals and artifacts, older than the retention',
    )
    .option(
      '--older-than <age>',
      'finished longer ago than this: 30d, 12h, 2w, 45m (default: marbles.retention in .foundry/config.json, else 30d)',
    )
    .option('--status <list>', 'only runs finished in these statuses, comma-separated (complete, failed, cancelled)')
    .action(
      action(async (ctx, options: PruneCommandOptions) => {
        const [{ parseAge, parseStatuses }, { pruneRuns }] = await Promise.all([
          import('../../engine/run-search.js'),
          import('../../engine/retention.js'),
        ])
        const olderThanMs = options.olderThan !== undefined ? parseAge(options.olderThan, '--older-than') : undefined
        const status = options.status !== undefined ? parseStatuses(options.status) : undefined
        const state = await ctx.state(false)
        const removed = await pruneRuns(state.storage, {
          artifacts: state.artifacts,
          ...(olderThanMs !== undefined
            ? { olderThanMs }
            : state.retentionMs !== undefined && { olderThanMs: state.retentionMs }),
          ...(status && { status }),
        })
        if (ctx.options.json) ctx.out(JSON.stringify({ pruned: removed }))
        else ctx.out(`Pruned ${removed.length} finished run${removed.length === 1 ? '' : 's'} from ${state.where}.`)
      }),
    )
}
