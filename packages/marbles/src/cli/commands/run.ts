import { Command } from 'commander'
import { isTerminal } from '../../journal/records.js'
import { action, type CommandContext } from '../context.js'
import { openCommandEngine } from '../command-engine.js'
import { EXIT } from '../../watch/watch.js'
import { printOutcome } from './watch.js'
import { drain } from '../await-run.js'

interface RunOptions {
  input?: string
  watch?: boolean
  detach?: boolean
  idempotencyKey?: string
}

/**
 * `marbles run <name>`: dispatch, then execute the run in this process when no other engine owns the
 * state (and exit once it settles or suspends), or leave it to the owner and wait for it. `--detach`
 * returns right after dispatch; the owner (or the next `marbles serve`) executes the run. On
 * PostgreSQL the run is a job in the queue: a `marbles worker` executes it, and `run` waits for it.
 */
export function runCommand(): Command {
  return new Command('run')
    .description('Dispatch a workflow or step and wait for it (exit 0 complete, 1 failed, 2 cancelled, 3 suspended)')
    .argument('<name>', 'the workflow or step (see marbles list)')
    .option('--input <json>', 'the input, a JSON object', '{}')
    .option('--watch', 'print the journal as the run goes')
    .option(
      '--detach',
      'return once the run is dispatched (marbles serve, or the engine owning the state, executes it)',
    )
    .option('--idempotency-key <key>', 'the same key within 24 h gives the run it named (no second run)')
    .action(
      action(async (ctx: CommandContext, name: string, options: RunOptions) => {
        let input: unknown
        try {
          input = JSON.parse(options.input ?? '{}')
        } catch (error) {
          throw new Error(`--input is not valid JSON: ${(error as Error).message}`)
        }
        if (options.idempotencyKey !== undefined) {
          const { assertIdempotencyKey } = await import('../../engine/idempotency.js')
          assertIdempotencyKey(options.idempotencyKey, '--idempotency-key')
        }
        const { engine, state, queue } = await openCommandEngine(ctx, options.detach)
        try {
          const { runId } = await engine.dispatch(
            name,
            input,
            options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey },
          )
          ctx.out(ctx.options.json ? JSON.stringify({ runId, name, status: 'queued', owner: engine.owner }) : runId)
          if (options.detach) return 0
          if (queue) process.stderr.write(`run ${runId} is queued for a worker (marbles worker) on ${state.where}\n`)
          else if (!engine.owner)
            process.stderr.write(
              `run ${runId} is executed by the engine owning ${state.where} (pid ${engine.holder?.pid})\n`,
            )
          // Ctrl-C: this process executes the run, so the run is cancelled; a run another engine executes carries on.
          ctx.interrupted.addEventListener(
            'abort',
            () => void (engine.owner ? engine.cancel(runId).catch(() => {}) : undefined),
            { once: true },
          )
          if (options.watch) {
            const { watchRun } = await import('../../watch/watch.js')
            const code = await watchRun(state.storage, runId, {
              json: ctx.options.json ?? false,
              ...(!engine.owner && { signal: ctx.interrupted }),
            })
            await drain(engine)
            return code
          }
          const info = await engine.settled(runId, engine.owner ? undefined : ctx.interrupted)
          await drain(engine)
          if (!info || !(isTerminal(info.status) || info.status === 'suspended')) return EXIT.interrupted
          printOutcome(ctx, info)
          return EXIT[info.status as 'complete' | 'failed' | 'cancelled' | 'suspended']
        } finally {
          await engine.close()
        }
      }),
    )
}
