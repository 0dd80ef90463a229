import type { ProjectContext } from '@foundry/project'
import type { SessionStartInput } from './input.js'
import { additionalContext, type HookOutput } from './io.js'

/**
 * SessionStart: inject `.foundry/memory/INDEX.md` (built when missing) and nothing else from
 * memory: one line a fact, capped at `indexTokenBudget`. Full facts are fetched on demand with
 * `memory_search`. Runs on every source (startup, resume, clear, compact), so a compacted session
 * gets the index back.
 */
export async function sessionStart(_input: SessionStartInput, project: ProjectContext): Promise<HookOutput> {
  const index = await project.kernel.memory.readIndex()
  return additionalContext('SessionStart', index)
}
