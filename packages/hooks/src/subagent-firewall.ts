import { errorMessage, estimateTokens } from '@foundry/kernel'
import type { ProjectContext } from './config.js'
import type { SubagentStopInput } from './input.js'
import { block, type HookOutput } from './io.js'

/** The contract of the returns the firewall saves: a built-in of the kernel (`BUILTIN_CONTRACTS`). */
export const HANDOFF_CONTRACT = 'handoff.v1'
/** The blackboard wave that holds the returns the firewall saved. */
export const FIREWALL_WAVE = 'firewall'
/** A return may be this many times `handoffSummaryTokenBudget`. */
export const FIREWALL_FACTOR = 3

/** What happened to one subagent return (the `outcome` of its `subagent_return` event). */
export type FirewallOutcome = 'within-budget' | 'blocked' | 'passed-after-block' | 'enforcement-off'

/**
 * SubagentStop, the context firewall: a subagent's final message is what its caller pays for, so
 * one over `3 × handoffSummaryTokenBudget` tokens (900 by default; `estimateTokens`) is refused with
 * `{"decision":"block","reason":…}` and the subagent is told to reply with a blackboard artifact's
 * path, a summary within budget and any blocking question.
 *
 * - Before blocking it saves the message itself to `blackboard/firewall/<agent_type>-<agent_id>.json`
 *   (contract `handoff.v1`) and names that path in the reason, so nothing is lost where the client
 *   drops or replaces a blocked message. When saving fails it still blocks, without a path.
 * - It never blocks twice in a row: with `stop_hook_active` the subagent is already answering a
 *   block, and whatever it returns then passes.
 * - Active at every enforcement level but `off`: `warn` blocks exactly as `gate` does (profiles such
 *   as `startup-mvp` lower enforcement and keep the firewall; tune it with the budget).
 * - Records `subagent_return` for every return, and `gate_blocked` when it blocks.
 */
export async function subagentFirewall(input: SubagentStopInput, project: ProjectContext): Promise<HookOutput> {
  const { kernel, config } = project
  const text = input.last_assistant_message ?? ''
  const budget = config.handoffSummaryTokenBudget
  const limit = FIREWALL_FACTOR * budget
  const tokens = estimateTokens(text)
  const who = { agentType: input.agent_type ?? 'unknown', agentId: input.agent_id ?? 'unknown', sessionId: input.session_id }
  const outcome: FirewallOutcome =
    config.enforcement === 'off' ? 'enforcement-off' : tokens <= limit ? 'within-budget' : input.stop_hook_active ? 'passed-after-block' : 'blocked'
  await kernel.record('subagent_return', { ...who, tokens, limit, outcome, enforcement: config.enforcement })
  if (outcome !== 'blocked') return undefined

  const saved = await saveReturn(project, input, text, tokens, limit)
  await kernel.record('gate_blocked', { gate: 'subagent-firewall', ...who, tokens, limit, enforcement: config.enforcement, ...(saved.path && { artifact: saved.path }) })
  return block(blockReason(tokens, limit, budget, saved))
}

interface Saved {
  path?: string
  /** Why the return could not be saved. */
  error?: string
}

/** Write the oversized return to the blackboard unchanged; never throws. */
async function saveReturn(project: ProjectContext, input: SubagentStopInput, text: string, tokens: number, limit: number): Promise<Saved> {
  const agentType = input.agent_type ?? 'subagent'
  const head = text.replace(/\s+/g, ' ').trim().slice(0, 300)
  try {
    const result = await project.kernel.blackboard.write({
      wave: FIREWALL_WAVE,
      agent: `${agentType}-${input.agent_id ?? (input.session_id || 'unknown')}`,
      schema: HANDOFF_CONTRACT,
      data: {
        summary: `Oversized return of ${agentType} (~${tokens} tokens, limit ${limit}), saved whole by the context firewall: ${head}`,
        text,
        agentType,
        ...(input.agent_id && { agentId: input.agent_id }),
        ...(input.session_id && { sessionId: input.session_id }),
        tokens,
      },
    })
    return result.written && result.path ? { path: result.path } : { error: result.violations.join('; ') || 'not written' }
  } catch (error) {
    return { error: errorMessage(error) }
  }
}

function blockReason(tokens: number, limit: number, budget: number, saved: Saved): string {
  const kept = saved.path
    ? `It has been saved unchanged to ${saved.path}, so nothing is lost.`
    : `It could not be saved for you (${saved.error}): write your full result with blackboard_write first.`
  return [
    `Foundry context firewall: your final message is ~${tokens} tokens; a subagent may return at most ${limit} (${FIREWALL_FACTOR} × handoffSummaryTokenBudget ${budget}). ${kept}`,
    'Reply again with only:',
    `1. the path of the blackboard artifact holding your full result${saved.path ? ` (${saved.path}, or a better-structured one you write with blackboard_write)` : ''};`,
    `2. a summary of at most ${budget} tokens;`,
    '3. any blocking question for your caller.',
  ].join('\n')
}
