import type { ProjectContext } from '@foundry/project'
import type { SubagentStopInput } from './input.js'
import { block, type HookOutput } from './io.js'

/**
 * SubagentStop, the context firewall: the kernel's `firewall.check` decides (budget, saving the return
 * to the blackboard, the message; see it for the rules) and records the events; this hook turns a
 * block into Claude Code's `{"decision":"block","reason":…}`.
 */
export async function subagentFirewall(input: SubagentStopInput, project: ProjectContext): Promise<HookOutput> {
  const decision = await project.kernel.firewall.check({
    text: input.last_assistant_message ?? '',
    ...(input.agent_type !== undefined && { agentType: input.agent_type }),
    ...(input.agent_id !== undefined && { agentId: input.agent_id }),
    sessionId: input.session_id,
    ...(input.stop_hook_active && { retry: true }),
  })
  return decision.reason ? block(decision.reason) : undefined
}
