import type { RunActions } from '@foundry/console'
import { errorMessage, FoundryError } from '@foundry/kernel'
import type { Engine } from '@foundry/marbles/engine'

/** The console's run actions and what closes the engine behind them. */
export type MarblesRunActions = RunActions & { close(): Promise<void> }

/**
 * The console's dispatch, cancel and re-run over Marbles' engine, as `marbles mcp` serves them: the
 * project's workspace (`.foundry/marbles/`) and state, and an engine of its own beside any others
 * on the state (`local`: it executes the runs it dispatches, in this process). Opened on first use,
 * so a project without a workspace serves the console as before; a workspace that fails to load is
 * tried again on the next call. `close()` cancels what still runs here and closes the state.
 */
export function marblesRunActions(root: string): MarblesRunActions {
  let opening: Promise<{ engine: Engine; close(): Promise<void> }> | undefined
  let closed = false

  const open = () => {
    if (closed) throw new FoundryError('UNAVAILABLE', 'The console is closing: runs are no longer dispatched here')
    return (opening ??= openMarbles(root).catch((error: unknown) => {
      opening = undefined
      throw error
    }))
  }

  return {
    async workflows() {
      const { engine } = await open()
      return [...engine.definitions.runnables.values()].map((d) => ({
        name: d.name,
        ...(d.description && { description: d.description }),
        inputSchema: (d.input ?? { type: 'object' }) as unknown,
      }))
    },
    async dispatch(name, input, options = {}) {
      const { engine } = await open()
      const run = await engine.dispatch(name, input, options)
      return { runId: run.runId, name: run.name, status: run.status }
    },
    async cancel(runId) {
      const { engine } = await open()
      const info = await engine.cancel(runId)
      if (!info) throw new FoundryError('NOT_FOUND', `run ${runId}: no such run; the Runs page lists them`)
      return { runId, status: info.status }
    },
    async rerun(runId) {
      const { engine } = await open()
      const run = await engine.rerun(runId)
      return { runId: run.runId, name: run.name, status: run.status, rerunOf: runId }
    },
    async close() {
      if (closed) return
      closed = true
      const opened = await opening?.catch(() => undefined)
      await opened?.close()
    },
  }
}

/** The workspace, the state and a `local` engine on them, as `marbles mcp` opens them. */
async function openMarbles(root: string): Promise<{ engine: Engine; close(): Promise<void> }> {
  const { loadWorkspace, openState, openEngine } = await import('@foundry/marbles/engine')
  let workspace: Awaited<ReturnType<typeof loadWorkspace>>
  try {
    workspace = await loadWorkspace({ root })
  } catch (error) {
    throw new FoundryError('NOT_FOUND', errorMessage(error))
  }
  const state = await openState({ root, needKernel: true })
  try {
    const engine = await openEngine({
      storage: state.storage,
      artifacts: state.artifacts,
      kernel: state.kernel,
      definitions: workspace.definitions,
      role: 'local',
      ...(state.concurrency !== undefined && { concurrency: state.concurrency }),
    })
    return {
      engine,
      close: async () => {
        await engine.close()
        await state.close()
      },
    }
  } catch (error) {
    await state.close().catch(() => {})
    throw error
  }
}
