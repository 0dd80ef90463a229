import { Command } from 'commander'
import { foldJournal, followJournal } from '../../journal/follow.js'
import { awaitRun } from '../await-run.js'
import { action } from '../context.js'
import { openCommandEngine } from '../command-engine.js'

/**
 * `marbles signal <runId> <name> --data <json>`: send the signal a run waits for (`ctx.waitFor`),
 * then wait for the run as `marbles run` does: executed here when no engine owns the state (the run
 * outlived the process that started it), else by the owner.
 */
export function signalCommand(): Command {
  return new Command('signal')
    .description(
      'Send the signal a waiting run waits for, and wait for the run (exit 0 complete, 1 failed, 2 cancelled, 3 suspended)',
    )
    .argument('<runId>', 'the waiting run')
    .argument('<name>', 'the signal, as the run waits for it (marbles runs shows it)')
    .option('--data <json>', "the signal's data, JSON checked against the wait's schema", 'null')
    .option('--detach', 'return once the signal is sent')
    .action(
      action(async (ctx, runId: string, name: string, options: { data: string; detach?: boolean }) => {
        let data: unknown
        try {
          data = JSON.parse(options.data)
        } catch (error) {
          throw new Error(`--data is not valid JSON: ${(error as Error).message}`)
        }
        const { engine, state, queue } = await openCommandEngine(ctx, options.detach)
        try {
          const { nextSeq } = await foldJournal(state.storage, runId)
          await engine.signal(runId, name, data)
          ctx.out(
            ctx.options.json ? JSON.stringify({ runId, name, sent: true }) : `signal ${name} sent to run ${runId}`,
          )
          if (options.detach) return 0
          // Until the run has taken the signal (its journal grows), it still reads `suspended`.
          for await (const record of followJournal(state.storage, runId, { signal: ctx.interrupted }))
            if (record.seq >= nextSeq) break
          return await awaitRun(ctx, engine, state, runId, queue !== undefined)
        } finally {
          await engine.close()
        }
      }),
    )
}
