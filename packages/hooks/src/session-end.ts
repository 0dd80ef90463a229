import type { ProjectContext } from '@foundry/project'
import type { SessionEndInput } from './input.js'
import type { HookOutput } from './io.js'

/** SessionEnd: record `session_end` with the reason Claude Code gives. Prints nothing; cannot block. */
export async function sessionEnd(input: SessionEndInput, project: ProjectContext): Promise<HookOutput> {
  await project.kernel.record('session_end', { sessionId: input.session_id, reason: input.reason ?? 'unknown' })
  return undefined
}
