import { createHash, randomUUID } from 'node:crypto'
import type { Storage } from '@foundry/kernel'
import { KIND } from '../define/brand.js'
import type { WorkflowDefinition } from '../define/workflow.js'
import { runAgent, type AgentHost } from '../agents/agent-run.js'
import { readTranscript } from './transcript.js'

/** The capture run: a session's transcript, since the last capture, distilled into proposed facts. */
export const DISTILL_WORKFLOW = 'memory.distill'
/** The contract the distill agent's answer must meet (a built-in of the kernel). */
export const PROPOSAL_CONTRACT = 'facts.proposal.v1'
/** Where each transcript's cursor is kept: the byte offset the last capture read up to. */
export const CAPTURE_COLLECTION = 'marbles.capture'

export interface DistillInput {
  /** The transcript Claude Code names in the hook input (`transcript_path`). */
  transcript: string
  /** The session id, kept as the proposals' origin. */
  session?: string
}

export interface DistillOutput {
  from: number
  end: number
  proposed: number
  duplicates: number
  accepted: number
}

export interface DistillOptions {
  storage: Storage
  provider: string
  model: string
  maxChars: number
}

interface Cursor {
  transcript: string
  offset: number
  runId: string
}

const INSTRUCTIONS = [
  'You distill a coding session into durable project facts for a review queue.',
  'Propose only what the session established and a later session needs: decisions, constraints, conventions, risks, domain terms. Never transient state, plans or guesses.',
  'Each fact: title (at most 80 characters, stating the fact itself), body (at most 120 words; for decision and risk, a `Why:` line and a `How to apply:` line), type (decision | constraint | convention | domain | risk | metric | glossary), optional confidence (high | medium | low) and tags.',
  'Reply with JSON only: {"facts": [...]} (an empty list when nothing qualifies).',
].join('\n')

export const cursorKey = (transcript: string) =>
  `cursor/${createHash('sha256').update(transcript).digest('hex').slice(0, 32)}`

/**
 * `memory.distill`: read the transcript past its cursor (step `transcript`), ask the agent on the
 * cheap model for proposals under `facts.proposal.v1` (step `agent`: an answer that breaks the
 * contract fails the run here, before anything is written), queue them for review in one write
 * (step `propose`), then move the cursor (step `cursor`). A run killed before `propose` wrote
 * nothing; one killed between `propose` and `cursor` is read again by the next capture, whose
 * identical proposals the queue keeps once.
 */
export function distillRunnable(
  host: AgentHost,
  options: DistillOptions,
): WorkflowDefinition<DistillInput, DistillOutput> {
  const { storage } = options
  return {
    [KIND]: 'workflow',
    name: DISTILL_WORKFLOW,
    description: 'proposes the facts a session established, for review',
    input: undefined,
    timeoutMs: undefined,
    resumable: false,
    version: undefined,
    compatible: [],
    async run(ctx, input) {
      if (typeof input?.transcript !== 'string' || !input.transcript)
        throw new Error('transcript: the path of the session transcript is required')
      const key = cursorKey(input.transcript)
      const part = await ctx.step('transcript', async () => {
        const cursor = (await storage.get(CAPTURE_COLLECTION, key)) as Cursor | undefined
        return readTranscript(input.transcript, cursor?.offset ?? 0, options.maxChars)
      })
      const saveCursor = () =>
        ctx.step('cursor', async () => {
          await storage.put(CAPTURE_COLLECTION, key, {
            transcript: input.transcript,
            offset: part.end,
            runId: ctx.runId,
          })
          return part.end
        })
      if (!part.text.trim()) {
        await saveCursor()
        return { from: part.from, end: part.end, proposed: 0, duplicates: 0, accepted: 0 }
      }
      const prompt = `The session transcript since the last capture:\n\n${part.text}`
      const answer = await runAgent(
        ctx,
        {
          prompt,
          agent: DISTILL_WORKFLOW,
          instructions: INSTRUCTIONS,
          provider: options.provider,
          model: options.model,
          cwd: host.root,
          session: { id: randomUUID(), provider: options.provider, model: options.model },
          contract: PROPOSAL_CONTRACT,
        },
        host,
      )
      const facts = (answer.data as { facts?: unknown[] } | undefined)?.facts ?? []
      const results = await ctx.step('propose', async () => {
        if (!facts.length) return []
        const origin = input.session ? `session ${input.session}` : `run ${ctx.runId}`
        return (await ctx.kernel.review.propose(facts, { author: 'capture', origin: origin.slice(0, 200) })).results
      })
      await saveCursor()
      const count = (action: string) => results.filter((r) => r.action === action).length
      ctx.log.info(
        `proposed ${count('proposed')}, already waiting ${count('duplicate')}, accepted at once ${count('accepted')}`,
      )
      return {
        from: part.from,
        end: part.end,
        proposed: count('proposed'),
        duplicates: count('duplicate'),
        accepted: count('accepted'),
      }
    },
  }
}
