import type { Engine } from '../engine/engine.js'
import type { MarblesState } from '../state.js'
import { type CommandContext, journalOption } from './context.js'

/**
 * The engine of a command that starts runs (`run`, `rerun`, `signal`), over the workspace and the
 * state: `auto` (it executes here when no engine owns the state), or a `reader` that only records
 * the run with `--detach`. The caller closes it.
 */
export async function openCommandEngine(
  ctx: CommandContext,
  detach: boolean | undefined,
): Promise<{ engine: Engine; state: MarblesState; queue: Awaited<ReturnType<MarblesState['queue']>> }> {
  const workspace = await ctx.workspace()
  const state = await ctx.state(true)
  const { openEngine } = await import('../engine/engine.js')
  const queue = await state.queue()
  const engine = await openEngine({
    storage: state.storage,
    artifacts: state.artifacts,
    kernel: state.kernel,
    definitions: workspace.definitions,
    role: detach ? 'reader' : 'auto',
    ...(queue && { queue }),
    ...journalOption(ctx.options),
  })
  return { engine, state, queue }
}
