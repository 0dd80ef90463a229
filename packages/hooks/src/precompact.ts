import type { ProjectContext } from '@foundry/project'
import { startCapture } from './capture.js'
import type { PreCompactInput } from './input.js'
import type { HookOutput } from './io.js'

/**
 * PreCompact: remind that compaction forgets whatever is not stored as a fact, naming how many
 * facts memory holds (`memory.activeCount()`: the stored figures, no fact read). It never blocks: it
 * cannot know what is worth keeping.
 *
 * The reminder is printed as plain text. PreCompact has no `additionalContext` (Claude Code rejects
 * `hookSpecificOutput` for it), but the plain stdout of a PreCompact hook that exits 0 is passed to
 * the summariser as custom compaction instructions, so the reminder shapes the summary the session
 * continues from: the decisions still unwritten survive there, to be stored right after.
 * With `capture.enabled`, it also starts the detached capture run over the transcript (capture.ts).
 */
export async function precompact(input: PreCompactInput, project: ProjectContext): Promise<HookOutput> {
  await startCapture(input, project)
  return `${compactionReminder(await project.kernel.memory.activeCount())}\n`
}

export function compactionReminder(facts: number): string {
  const held = facts === 1 ? '1 fact' : `${facts} facts`
  return [
    `Foundry memory holds ${held}. Compaction keeps only this summary: anything decided in this session that is not stored as a fact will be forgotten.`,
    'Before the transcript is summarised, store each decision, constraint, convention or risk worth keeping with memory_write.',
    'In the summary, list under "Not yet in memory" every such item that was not written, so it is stored right after compaction.',
  ].join('\n')
}
