import { Type } from '../schema/typebox.js'

let built: Readonly<Record<string, object>> | undefined

/**
 * Contracts every project has; project contracts live beside them and may not reuse these ids. Their
 * schemas are built on the first call (a process that validates no artifact never builds them).
 */
export function builtinContracts(): Readonly<Record<string, object>> {
  built ??= buildContracts()
  return built
}

function buildContracts(): Readonly<Record<string, object>> {
  const Severity = Type.Enum(['critical', 'high', 'medium', 'low', 'info'])

  /** One finding of a review or an audit. `failureScenario` says how it breaks in practice: no scenario, no finding. */
  const FindingV1 = Type.Object(
    {
      schema: Type.Optional(Type.String()),
      producedBy: Type.Optional(Type.String()),
      title: Type.String({ minLength: 1, maxLength: 200 }),
      severity: Severity,
      summary: Type.Optional(Type.String()),
      location: Type.Optional(Type.String({ description: 'file:line, endpoint or component' })),
      failureScenario: Type.String({
        minLength: 1,
        description: 'The concrete sequence of events in which this fails',
      }),
      evidence: Type.Optional(Type.Array(Type.String())),
      recommendation: Type.Optional(Type.String()),
    },
    { $id: 'finding.v1', title: 'finding.v1' },
  )

  /** A review: a summary, a verdict and its findings. */
  const ReviewV1 = Type.Object(
    {
      schema: Type.Optional(Type.String()),
      producedBy: Type.Optional(Type.String()),
      summary: Type.String({ minLength: 1, description: 'What the reviewer concluded, in a few sentences' }),
      verdict: Type.Enum(['approve', 'request-changes', 'block']),
      findings: Type.Array(FindingV1),
      questions: Type.Optional(Type.Array(Type.String(), { description: 'Blocking questions for the caller' })),
    },
    { $id: 'review.v1', title: 'review.v1' },
  )

  /**
   * A subagent's handoff: a summary within the handoff budget, and optionally the full text, blocking
   * questions and who produced it. The context firewall saves oversized returns with it.
   */
  const HandoffV1 = Type.Object(
    {
      schema: Type.Optional(Type.String()),
      producedBy: Type.Optional(Type.String()),
      summary: Type.String({ minLength: 1, description: 'What the agent concluded, within handoffSummaryTokenBudget' }),
      text: Type.Optional(
        Type.String({ description: 'The full result, or the oversized return the context firewall saved' }),
      ),
      questions: Type.Optional(Type.Array(Type.String(), { description: 'Blocking questions for the caller' })),
      agentType: Type.Optional(Type.String()),
      agentId: Type.Optional(Type.String()),
      sessionId: Type.Optional(Type.String()),
      tokens: Type.Optional(Type.Integer({ minimum: 0, description: 'Estimated tokens of text' })),
    },
    { $id: 'handoff.v1', title: 'handoff.v1' },
  )

  /** One fact a distill run proposes from a session: `memory_write`'s fields, without ids or chains. */
  const ProposedFact = Type.Object(
    {
      title: Type.String({ minLength: 1, maxLength: 80, description: 'States the fact itself, not the topic' }),
      body: Type.String({
        minLength: 1,
        maxLength: 4000,
        description: 'At most 120 words; for decision and risk, Why: and How to apply: lines',
      }),
      type: Type.Enum(['decision', 'constraint', 'convention', 'domain', 'risk', 'metric', 'glossary']),
      scope: Type.Optional(Type.String({ maxLength: 200 })),
      tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 20 })),
      confidence: Type.Optional(Type.Enum(['high', 'medium', 'low'])),
    },
    { additionalProperties: false },
  )

  /** What `memory.distill` returns: the facts a session established, for the review queue (none is fine). */
  const FactsProposalV1 = Type.Object(
    {
      schema: Type.Optional(Type.String()),
      producedBy: Type.Optional(Type.String()),
      facts: Type.Array(ProposedFact, { maxItems: 50 }),
    },
    { $id: 'facts.proposal.v1', title: 'facts.proposal.v1' },
  )

  return {
    'finding.v1': FindingV1,
    'review.v1': ReviewV1,
    'handoff.v1': HandoffV1,
    'facts.proposal.v1': FactsProposalV1,
  }
}
