import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Workspace } from '../../workspace/load.js'
import type { IsolateOptions } from './isolate.js'

/**
 * The workspace's workflow and step bodies in worker threads, from `body-worker.js` built beside the
 * `marbles` bin (this module is bundled there); undefined when run from source (bodies run in this process).
 */
export function workspaceIsolation(workspace: Workspace): IsolateOptions | undefined {
  const worker = fileURLToPath(new URL('./body-worker.js', import.meta.url))
  if (!existsSync(worker)) return undefined
  return {
    worker,
    workspace: { root: workspace.source.dir, source: workspace.source.path },
    runs: (name) => workspace.definitions.runnables.has(name),
  }
}
