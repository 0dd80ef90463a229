import { FoundryError } from '@foundry/kernel'
import type { Project } from '@foundry/project'
import type { ReviewAnswer, ReviewDecisionAnswer } from './wire.js'

const PROPOSAL_ID = /^proposal-[0-9]{4,15}$/

/** A proposal id from the path, checked here so the message names the form. */
export function proposalId(text: string | undefined): string {
  if (!text || !PROPOSAL_ID.test(text))
    throw new FoundryError(
      'INVALID_INPUT',
      `proposal id: write it as proposal-0003, got ${JSON.stringify((text ?? '').slice(0, 40))}`,
    )
  return text
}

/** The Review page: the proposals waiting, oldest first. */
export async function reviewQueue(project: Project): Promise<ReviewAnswer> {
  return { proposals: (await project.kernel.review.list()).proposals }
}

/** Accept: written through the memory write path, as `foundry review --accept` does. */
export async function acceptProposal(project: Project, id: string): Promise<ReviewDecisionAnswer> {
  const result = await project.kernel.review.accept(id)
  return {
    proposal: id,
    id: result.id,
    action: result.action,
    ...(result.supersedes && { supersedes: result.supersedes }),
    text: result.text,
  }
}

/** Reject, with an optional reason (at most 500 characters). */
export async function rejectProposal(
  project: Project,
  id: string,
  body: Record<string, unknown>,
): Promise<ReviewDecisionAnswer> {
  if (body.reason !== undefined && typeof body.reason !== 'string')
    throw new FoundryError('INVALID_INPUT', 'reason: a string, at most 500 characters')
  const { text } = await project.kernel.review.reject(id, body.reason?.trim() || undefined)
  return { proposal: id, text }
}

/** Edit a waiting proposal; the kernel checks the fields and names the one at fault. */
export async function editProposal(
  project: Project,
  id: string,
  body: Record<string, unknown>,
): Promise<ReviewDecisionAnswer> {
  const { text } = await project.kernel.review.edit(id, body)
  return { proposal: id, text }
}
