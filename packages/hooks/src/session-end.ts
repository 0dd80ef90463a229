import type { ProjectContext } from '@foundry/project'
import { startCapture } from './capture.js'
import type { SessionEndInput } from './input.js'
import type { HookOutput } from './io.js'

/** SessionEnd: record `session_end` with the reason Claude Code gives, and with `capture.enabled` start the capture run. Prints nothing; cannot block. */
export async function sessionEnd(input: SessionEndInput, project: ProjectContext): Promise<HookOutput> {
  await project.kernel.record('session_end', { sessionId: input.session_id, reason: input.reason ?? 'unknown' })
  await startCapture(input, project)
  return undefined
}
