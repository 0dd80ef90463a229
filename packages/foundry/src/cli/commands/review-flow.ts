import { createInterface } from 'node:readline/promises'
import type { Kernel, Proposal } from '@foundry/kernel'
import type { CommandContext, CommandOutput } from '../context.js'
import { withEditor } from '../editor.js'
import { fromEditFile } from './edit-file.js'

/**
 * The terminal flow of `foundry review`: each waiting proposal shown whole, then a one-key choice:
 * accept, reject (with a reason), edit (in `$EDITOR`, then asked again), skip or quit. Each decision
 * is stored as it is made, so quitting keeps those already made.
 */
export async function reviewFlow(ctx: CommandContext): Promise<CommandOutput> {
  const { kernel } = await ctx.project()
  const { text, proposals } = await kernel.review.list()
  if (!proposals.length) return { text, json: { proposals } }
  const rl = createInterface({ input: process.stdin, output: process.stdout })
  const tally = { accepted: 0, rejected: 0, edited: 0, skipped: 0 }
  try {
    for (const [i, first] of proposals.entries()) {
      let proposal = first
      let done = false
      while (!done) {
        process.stdout.write(`\n(${i + 1}/${proposals.length})\n${renderOf(proposal)}\n`)
        const answer = (await rl.question('[a]ccept, [r]eject, [e]dit, [s]kip, [q]uit? ')).trim().toLowerCase()
        if (answer === 'q') return summary(tally)
        if (answer === 'a') {
          process.stdout.write(`${(await kernel.review.accept(proposal.id)).text}\n`)
          tally.accepted++
          done = true
        } else if (answer === 'r') {
          const reason = (await rl.question('reason (optional): ')).trim()
          process.stdout.write(`${(await kernel.review.reject(proposal.id, reason || undefined)).text}\n`)
          tally.rejected++
          done = true
        } else if (answer === 'e') {
          proposal = await editInEditor(kernel, proposal)
          tally.edited++
        } else if (answer === 's' || answer === '') {
          tally.skipped++
          done = true
        }
      }
    }
    return summary(tally)
  } finally {
    rl.close()
  }
}

function renderOf(proposal: Proposal): string {
  const f = proposal.fact
  return [
    `${proposal.id} · ${f.type} · ${f.confidence ?? 'medium'}${proposal.author ? ` · by ${proposal.author}` : ''}`,
    f.title,
    '',
    f.body.trim(),
    `scope: ${f.scope ?? 'project'}${f.tags?.length ? ` · tags: ${f.tags.join(', ')}` : ''}`,
  ].join('\n')
}

async function editInEditor(kernel: Kernel, proposal: Proposal): Promise<Proposal> {
  const f = proposal.fact
  const file = [
    '---',
    `# Editing ${proposal.id}. Save and close to change the proposal; it stays in the queue until accepted or rejected.`,
    `title: ${JSON.stringify(f.title)}`,
    `type: ${f.type}`,
    `scope: ${f.scope ?? 'project'}`,
    `tags: [${(f.tags ?? []).join(', ')}]`,
    `confidence: ${f.confidence ?? 'medium'}`,
    '---',
    '',
    f.body,
    '',
  ].join('\n')
  return withEditor(`${proposal.id}.md`, file, 'foundry review --edit <id> --body …', async (text) => {
    const { title, type, scope, tags, confidence, body } = fromEditFile(text)
    const changes = Object.fromEntries(
      Object.entries({ title, type, scope, tags, confidence, body }).filter(([, v]) => v !== undefined),
    )
    return (await kernel.review.edit(proposal.id, changes)).proposal
  })
}

function summary(tally: Record<string, number>): CommandOutput {
  const text = Object.entries(tally)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ')
  return { text: `review: ${text}`, json: tally }
}
