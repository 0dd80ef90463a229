import type { ProjectContext } from '@foundry/project'
import type { UserPromptSubmitInput } from './input.js'
import { additionalContext, type HookOutput } from './io.js'

/**
 * UserPromptSubmit: the kernel's `promptContext.forPrompt` chooses the facts and runbooks worth
 * adding to the user's prompt (see it for the rules); this hook adds them as `additionalContext`,
 * and prints nothing at all when nothing qualifies.
 */
export async function promptContext(input: UserPromptSubmitInput, project: ProjectContext): Promise<HookOutput> {
  const context = await project.kernel.promptContext.forPrompt(input.prompt)
  return context && additionalContext('UserPromptSubmit', context.text)
}
