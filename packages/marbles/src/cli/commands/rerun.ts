import { Command } from 'commander'
import { awaitRun } from '../await-run.js'
import { action } from '../context.js'
import { openCommandEngine } from '../command-engine.js'

/**
 * `marbles rerun <runId> [--from <step>]`: a new run linked to an ended one (`rerunOf`), replaying
 * the steps that ended before `--from` (default: the first failed step) and executing from there.
 */
export function rerunCommand(): Command {
  return new Command('rerun')
    .description(
      'Re-run an ended run from its failed step (or --from a step) in a new linked run, and wait for it (exit as run)',
    )
    .argument('<runId>', 'the ended run')
    .option('--from <step>', 'the step to execute again, as the journal names it (default: the first failed step)')
    .option('--detach', 'return once the new run is dispatched')
    .action(
      action(async (ctx, runId: string, options: { from?: string; detach?: boolean }) => {
        const { engine, state, queue } = await openCommandEngine(ctx, options.detach)
        try {
          const run = await engine.rerun(runId, { ...(options.from !== undefined && { from: options.from }) })
          ctx.out(ctx.options.json ? JSON.stringify({ ...run, rerunOf: runId }) : run.runId)
          if (options.detach) return 0
          return await awaitRun(ctx, engine, state, run.runId, queue !== undefined)
        } finally {
          await engine.close()
        }
      }),
    )
}
