import { Command } from 'commander'
import { isTerminal } from '../../journal/records.js'
import { action } from '../context.js'
import { printOutcome } from './watch.js'

/** `marbles cancel <runId>`: request cancellation, and wait (10 s at most) for the run to settle. */
export function cancelCommand(): Command {
  return new Command('cancel')
    .description("Request a run's cancellation and wait for it to settle")
    .argument('<runId>', 'the run id')
    .action(
      action(async (ctx, runId: string) => {
        const state = await ctx.state(false)
        const { openEngine } = await import('../../engine/engine.js')
        const queue = await state.queue()
        const engine = await openEngine({
          storage: state.storage,
          kernel: state.kernel,
          role: 'reader',
          ...(queue && { queue }),
        })
        try {
          const before = await engine.cancel(runId)
          if (!before) throw new Error(`unknown run ${runId}`)
          const info = isTerminal(before.status)
            ? before
            : ((await engine.settled(runId, AbortSignal.timeout(10_000))) ?? before)
          printOutcome(ctx, info)
          return 0
        } finally {
          await engine.close()
        }
      }),
    )
}
