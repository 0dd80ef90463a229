import { resolve } from 'node:path'
import { Command } from 'commander'
import type { AgentHost } from '../../agents/agent-run.js'
import type { Definitions, Runnable } from '../../define/registry.js'
import { action, type CommandContext, journalOption } from '../context.js'
import { EXIT } from '../../watch/watch.js'
import { printOutcome } from './watch.js'

interface DistillCommandOptions {
  session?: string
  harness?: string[]
}

/**
 * `marbles distill <transcript>`: the capture run `memory.distill` over a Claude Code transcript,
 * executed in this process on the project's state with the provider and model of the project's
 * `capture` configuration (the cheap tier). The Claude Code hooks start it detached at PreCompact and
 * SessionEnd when `capture.enabled`; it needs no workspace. Exits as `watch` does.
 */
export function distillCommand(): Command {
  return new Command('distill')
    .description(
      'Propose the facts a Claude Code session established, for review (memory.distill over its transcript since the last capture)',
    )
    .argument('<transcript>', 'the session transcript (JSONL), as the hook input names it (transcript_path)')
    .option('--session <id>', "the session id, kept as the proposals' origin")
    .option(
      '--harness <provider[=command]>',
      'offer only this provider, or run its CLI from this command (repeatable)',
      (value: string, all: string[] = []) => [...all, value],
    )
    .action(
      action(async (ctx: CommandContext, transcript: string, options: DistillCommandOptions) => {
        const state = await ctx.state(true)
        const [{ openEngine }, { createHarnesses }, { createSessions }, { distillRunnable, DISTILL_WORKFLOW }] =
          await Promise.all([
            import('../../engine/engine.js'),
            import('../../harnesses/registry.js'),
            import('../../agents/sessions.js'),
            import('../../capture/distill.js'),
          ])
        const { provider, model, maxChars } = state.kernel.config.capture
        const harnesses = createHarnesses({ ...(options.harness && { flags: options.harness }) })
        if (!harnesses.has(provider))
          throw new Error(
            `capture.provider: "${provider}" is not offered; offered: ${[...harnesses.keys()].join(', ')}`,
          )
        const host: AgentHost = {
          harnesses,
          root: ctx.root,
          agents: new Map(),
          sessions: createSessions(state.storage),
          defaultProvider: provider,
          checkContract: async (id: string) => void (await state.kernel.contracts.get(id)),
        }
        const runnable = distillRunnable(host, { storage: state.storage, provider, model, maxChars })
        const definitions: Definitions = {
          runnables: new Map([[DISTILL_WORKFLOW, runnable as Runnable]]),
          agents: new Map(),
          schedules: new Map(),
          monitors: new Map(),
          origins: new Map(),
        }
        // This process executes the run (it owns the state for its length): another engine owning it would not know the workflow.
        const engine = await openEngine({
          storage: state.storage,
          artifacts: state.artifacts,
          kernel: state.kernel,
          definitions,
          role: 'owner',
          ...journalOption(ctx.options),
        })
        try {
          const { runId } = await engine.dispatch(DISTILL_WORKFLOW, {
            transcript: resolve(transcript),
            ...(options.session && { session: options.session }),
          })
          ctx.out(runId)
          ctx.interrupted.addEventListener('abort', () => void engine.cancel(runId).catch(() => {}), { once: true })
          const info = await engine.settled(runId)
          if (!info) return EXIT.interrupted
          printOutcome(ctx, info)
          return EXIT[info.status as 'complete' | 'failed' | 'cancelled' | 'suspended'] ?? EXIT.interrupted
        } finally {
          await engine.close()
        }
      }),
    )
}
