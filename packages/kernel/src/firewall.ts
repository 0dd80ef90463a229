import { blackboardPlugin } from './blackboard.js'
import { errorMessage } from './errors.js'
import { definePlugin, type PluginHost } from './plugin.js'
import { estimateTokens } from './tokens.js'

/** The contract of the returns the firewall saves: a built-in (`builtinContracts`). */
export const HANDOFF_CONTRACT = 'handoff.v1'
/** The blackboard wave that holds the returns the firewall saved. */
export const FIREWALL_WAVE = 'firewall'
/** A return may be this many times `handoffSummaryTokenBudget`. */
export const FIREWALL_FACTOR = 3

/** What happened to one subagent return. */
export type FirewallOutcome = 'within-budget' | 'blocked' | 'passed-after-block' | 'enforcement-off'

/** A subagent's final message, and who sent it. */
export interface FirewallInput {
  /** The message the caller would receive. */
  text: string
  agentType?: string
  agentId?: string
  sessionId?: string
  /** The subagent is already answering a block (Claude Code's `stop_hook_active`): whatever it returns now passes. */
  retry?: boolean
}

export interface FirewallDecision {
  outcome: FirewallOutcome
  /** `estimateTokens(text)`. */
  tokens: number
  /** `FIREWALL_FACTOR × handoffSummaryTokenBudget`. */
  limit: number
  budget: number
  agentType: string
  agentId: string
  sessionId: string | undefined
  /** Where the return was saved before blocking (absent when saving failed, or nothing was blocked). */
  artifact?: string
  /** When blocked: the instruction the subagent receives instead of passing its return on. */
  reason?: string
}

/**
 * The context firewall: a subagent's return is what its caller pays for, so one over
 * `3 × handoffSummaryTokenBudget` tokens is refused, and the subagent is told to reply with a
 * blackboard artifact's path, a summary within budget and any blocking question.
 *
 * - Before blocking it saves the return itself to `blackboard/firewall/<agentType>-<agentId>-<hash>`
 *   (contract `handoff.v1`; `firewallArtifactName`) and names that path, so nothing is lost where
 *   the client drops a blocked message. The hash is of the return and who sent it, so two returns
 *   never share a file (two agents of one type in one session, without an agent id). When saving
 *   fails it still blocks, without a path, and says it was not saved.
 * - It never blocks twice in a row (`retry`).
 * - Active at every enforcement level but `off`: `warn` blocks as `gate` does (profiles such as
 *   `startup-mvp` lower enforcement and keep the firewall; tune it with the budget).
 * - Records `subagent_return` for every return, and `gate_blocked` when it blocks.
 */
export interface FirewallService {
  check(input: FirewallInput): Promise<FirewallDecision>
}

export function createFirewall(ctx: PluginHost): FirewallService {
  const blackboard = ctx.use(blackboardPlugin)

  async function check(input: FirewallInput): Promise<FirewallDecision> {
    const { config } = ctx
    const budget = config.handoffSummaryTokenBudget
    const limit = FIREWALL_FACTOR * budget
    const tokens = estimateTokens(input.text)
    const outcome: FirewallOutcome =
      config.enforcement === 'off'
        ? 'enforcement-off'
        : tokens <= limit
          ? 'within-budget'
          : input.retry
            ? 'passed-after-block'
            : 'blocked'
    const decision: FirewallDecision = {
      outcome,
      tokens,
      limit,
      budget,
      agentType: input.agentType ?? 'unknown',
      agentId: input.agentId ?? 'unknown',
      sessionId: input.sessionId,
    }
    await ctx.record('subagent_return', { ...who(decision), tokens, limit, outcome, enforcement: config.enforcement })
    if (outcome !== 'blocked') return decision
    const saved = await save(input, tokens, limit)
    if (saved.path) decision.artifact = saved.path
    decision.reason = blockReason(tokens, limit, budget, saved)
    await ctx.record('gate_blocked', {
      gate: 'subagent-firewall',
      ...who(decision),
      tokens,
      limit,
      enforcement: config.enforcement,
      ...(saved.path && { artifact: saved.path }),
    })
    return decision
  }

  /** Write the oversized return to the blackboard unchanged; never throws. */
  async function save(input: FirewallInput, tokens: number, limit: number): Promise<{ path?: string; error?: string }> {
    const agentType = input.agentType ?? 'subagent'
    const head = input.text.replace(/\s+/g, ' ').trim().slice(0, 300)
    try {
      const result = await blackboard.write({
        wave: FIREWALL_WAVE,
        agent: firewallArtifactName(input),
        schema: HANDOFF_CONTRACT,
        data: {
          summary: `Oversized return of ${agentType} (~${tokens} tokens, limit ${limit}), saved whole by the context firewall: ${head}`,
          text: input.text,
          agentType,
          ...(input.agentId && { agentId: input.agentId }),
          ...(input.sessionId && { sessionId: input.sessionId }),
          tokens,
        },
      })
      // Saved means this return is what the path holds now: written, and not an identical one kept already.
      return result.written && result.path
        ? { path: result.path }
        : { error: result.violations.join('; ') || 'not written' }
    } catch (error) {
      return { error: errorMessage(error) }
    }
  }

  return { check }
}

/**
 * The agent name a blocked return is saved under: the agent type and id (or session) made plain and
 * short, then 12 hex digits of a hash of the return, type, id and session. Distinct returns get
 * distinct names (an identical one is the same artifact again, "Unchanged"); always a plain name
 * within 80 characters, whatever the agent type.
 */
export function firewallArtifactName(
  input: Pick<FirewallInput, 'text' | 'agentType' | 'agentId' | 'sessionId'>,
): string {
  const plain = (value: string, max: number) =>
    value
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, max) || 'x'
  const hash = hash48(
    JSON.stringify([input.text, input.agentType ?? null, input.agentId ?? null, input.sessionId ?? null]),
  )
  return `${plain(input.agentType ?? 'subagent', 32)}-${plain(input.agentId ?? (input.sessionId || 'unknown'), 32)}-${hash}`
}

/** 48 bits of two FNV-1a hashes of the UTF-16 text, as 12 hex digits (no `node:crypto` in the kernel). */
function hash48(text: string): string {
  let a = 0x811c9dc5
  let b = 0x01000193 ^ text.length
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15)
  }
  return ((a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0')).slice(0, 12)
}

const who = (d: FirewallDecision) => ({
  agentType: d.agentType,
  agentId: d.agentId,
  ...(d.sessionId !== undefined && { sessionId: d.sessionId }),
})

function blockReason(tokens: number, limit: number, budget: number, saved: { path?: string; error?: string }): string {
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

export const firewallPlugin = definePlugin({
  name: 'firewall',
  needs: [blackboardPlugin],
  setup: createFirewall,
  trace: {
    // `subagent_return` (and `gate_blocked`) are the seed's domain events, recorded as they happen; this is the timing.
    check: { kind: 'firewall_check', data: (d) => ({ outcome: d.outcome }) },
  },
})
