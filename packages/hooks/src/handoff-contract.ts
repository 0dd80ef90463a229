import { BUILTIN_CONTRACTS, type Kernel } from '@foundry/kernel'

/** The contract of a subagent's handoff, and of the returns the firewall saves for it. */
export const HANDOFF_CONTRACT = 'handoff.v1'

/**
 * `handoff.v1` as JSON Schema: a summary within the handoff budget, and optionally the full text,
 * blocking questions and who produced it. The firewall installs it as a project contract
 * (`.foundry/contracts/handoff.v1.json`) when the kernel has no built-in of that id.
 */
export const HANDOFF_SCHEMA = {
  $id: HANDOFF_CONTRACT,
  title: HANDOFF_CONTRACT,
  type: 'object',
  required: ['summary'],
  properties: {
    schema: { type: 'string' },
    producedBy: { type: 'string' },
    summary: { type: 'string', minLength: 1, description: 'What the agent concluded, within handoffSummaryTokenBudget' },
    text: { type: 'string', description: 'The full result, or the oversized return the context firewall saved' },
    questions: { type: 'array', items: { type: 'string' }, description: 'Blocking questions for the caller' },
    agentType: { type: 'string' },
    agentId: { type: 'string' },
    sessionId: { type: 'string' },
    tokens: { type: 'integer', minimum: 0, description: 'Estimated tokens of text' },
  },
} as const

/** Make `handoff.v1` available: a built-in of the kernel, a project contract already stored, or the one installed now. */
export async function ensureHandoffContract(kernel: Kernel): Promise<void> {
  if (BUILTIN_CONTRACTS[HANDOFF_CONTRACT]) return
  if (await kernel.storage.get('contracts', HANDOFF_CONTRACT)) return
  await kernel.storage.put('contracts', HANDOFF_CONTRACT, { id: HANDOFF_CONTRACT, schema: { ...HANDOFF_SCHEMA } })
}
