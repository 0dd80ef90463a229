import { Command, InvalidArgumentError } from 'commander'
import { action, journalOption } from '../context.js'

interface WorkerCommandOptions {
  concurrency: number
  workflow?: string[]
  drain: number
}

const positive = (what: string) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`${what} must be a positive integer.`)
  return Number(value)
}

/**
 * `marbles worker`: execute runs from the job queue (a project on PostgreSQL) until SIGINT/SIGTERM.
 * Any number of workers, on any machines, share the queue; each loads the workspace as `serve` does.
 */
export function workerCommand(): Command {
  return new Command('worker')
    .description(
      'Execute runs from the job queue (a project on PostgreSQL), beside any number of other workers, until Ctrl-C or SIGTERM',
    )
    .option('--concurrency <n>', 'runs executed at once, per workflow', positive('--concurrency'), 4)
    .option(
      '--workflow <name>',
      'only this workflow or step (repeatable; default: every one the workspace declares)',
      (value: string, all: string[] = []) => [...all, value],
    )
    .option(
      '--drain <ms>',
      'on Ctrl-C or SIGTERM: how long runs in hand may take to finish before their jobs go back to the queue',
      positive('--drain'),
      10_000,
    )
    .action(
      action(async (ctx, options: WorkerCommandOptions) => {
        const workspace = await ctx.workspace()
        const state = await ctx.state(true)
        const queue = await state.queue(true)
        if (!queue)
          throw new Error(
            'marbles worker needs a job queue: put the project on PostgreSQL (storage { "kind": "postgres", "url": … } in .foundry/config.json), or set MARBLES_QUEUE_URL',
          )
        const { openEngine } = await import('../../engine/engine.js')
        const engine = await openEngine({
          storage: state.storage,
          artifacts: state.artifacts,
          kernel: state.kernel,
          definitions: workspace.definitions,
          queue,
          ...journalOption(ctx.options),
        })
        const names = options.workflow ?? [...workspace.definitions.runnables.keys()]
        try {
          await engine.work({ workflows: names, concurrency: options.concurrency, drainMs: options.drain })
          process.stderr.write(
            `marbles worker: ${state.where} · ${names.length} workflows and steps · ${options.concurrency} at once each (pid ${process.pid})\n`,
          )
          const keepAlive = setInterval(() => {}, 1 << 30)
          await new Promise<void>((resolve) =>
            ctx.interrupted.addEventListener('abort', () => resolve(), { once: true }),
          )
          clearInterval(keepAlive)
          if (engine.active().length)
            process.stderr.write(
              `marbles worker: stopping; ${engine.active().length} runs in hand get ${options.drain} ms to finish\n`,
            )
        } finally {
          await engine.close()
        }
        process.stderr.write('marbles worker: stopped\n')
        return 0
      }),
    )
}
