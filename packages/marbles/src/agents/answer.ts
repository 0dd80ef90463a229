import type { Kernel } from '@foundry/kernel'

/** What an agent run's output holds: the answer, or (over the handoff budget) its summary and the artifact holding it. */
export interface AgentOutput {
  /** The whole answer, when within the firewall's limit. */
  text?: string
  /** Over the limit: the answer's head, within `handoffSummaryTokenBudget`. */
  summary?: string
  /** Over the limit: the `handoff.v1` artifact holding the whole answer (`firewall/marbles-<runId>`). */
  artifact?: string
  /** Estimated tokens of the whole answer. */
  tokens: number
  /** The answer parsed as JSON, when the dispatch named an output contract (it passed). */
  data?: unknown
  contract?: string
}

/** An answer that broke the dispatch's output contract: the run fails with each violation. */
export class ContractViolation extends Error {
  override name = 'ContractViolation'
  constructor(
    readonly contract: string,
    readonly violations: string[],
  ) {
    super(`the answer violates ${contract}: ${violations.join('; ')}`)
  }
}

/**
 * The answer as JSON, for an output contract: the whole text, or the last fenced ```json block.
 * Throws a `ContractViolation` when there is no JSON to check.
 */
export function parseAnswer(text: string, contract: string): unknown {
  const fenced = [...text.matchAll(/```(?:json)?\s*\n([\s\S]*?)```/g)].at(-1)?.[1]
  for (const candidate of [text.trim(), fenced?.trim()]) {
    if (!candidate) continue
    try {
      return JSON.parse(candidate) as unknown
    } catch {
      // next candidate
    }
  }
  throw new ContractViolation(contract, ['the answer is not JSON (reply with one JSON object, or a ```json block)'])
}

/**
 * Hand an answer through the project's contract and context firewall: validate it against
 * `contract` (throws `ContractViolation`), then `kernel.firewall.check` (the SubagentStop hook's
 * policy) with the run as the agent: over the limit, the answer is saved as `handoff.v1` and only
 * its summary and path are returned.
 */
export async function handOff(
  kernel: Kernel,
  runId: string,
  text: string,
  options: { contract?: string; sessionId?: string },
): Promise<AgentOutput> {
  let data: unknown
  if (options.contract) {
    data = parseAnswer(text, options.contract)
    const violations = await kernel.contracts.violations(options.contract, data)
    if (violations.length) throw new ContractViolation(options.contract, violations)
  }
  const decision = await kernel.firewall.check({
    text,
    agentType: 'marbles',
    agentId: runId,
    ...(options.sessionId && { sessionId: options.sessionId }),
  })
  const contract = options.contract ? { contract: options.contract } : {}
  if (decision.outcome !== 'blocked')
    return { text, tokens: decision.tokens, ...(data !== undefined && { data }), ...contract }
  const head = text.slice(0, decision.budget * 4)
  return {
    summary: head.length < text.length ? `${head.replace(/\s+\S*$/, '')} …` : head,
    ...(decision.artifact && { artifact: decision.artifact }),
    tokens: decision.tokens,
    ...contract,
  }
}
