import { Command } from 'commander'
import type { RunInfo } from '../../engine/engine.js'
import { waitingLine } from '../../watch/render.js'
import { action, type CommandContext } from '../context.js'

/** `marbles watch <runId>`: replay, follow, print the result and the status; the exit code says how it ended. */
export function watchCommand(): Command {
  return new Command('watch')
    .description(
      "Replay and follow a run's journal to its end (exit 0 complete, 1 failed, 2 cancelled, 3 suspended, 4 unknown run, 130 interrupted watcher)",
    )
    .argument('<runId>', 'the run id dispatch printed')
    .action(
      action(async (ctx, runId: string) => {
        const state = await ctx.state(false)
        const { watchRun } = await import('../../watch/watch.js')
        return watchRun(state.storage, runId, { json: ctx.options.json ?? false, signal: ctx.interrupted })
      }),
    )
}

/** A settled run's result and status, as `watch` ends. */
export function printOutcome(ctx: CommandContext, info: RunInfo): void {
  if (ctx.options.json) return ctx.out(JSON.stringify(info))
  if (info.output !== undefined || info.artifact) ctx.out(`result: ${info.artifact ?? JSON.stringify(info.output)}`)
  if (info.status === 'suspended' && info.waitFor) return ctx.out(`run ${info.id} ${waitingLine(info.waitFor)}`)
  ctx.out(
    `run ${info.id} ${info.status}${info.error ? `: ${info.error.name}: ${info.error.message}` : info.reason ? ` (${info.reason})` : ''}`,
  )
}
