import { renderFactBlock, renderRunbook, type Fact, type Runbook } from '@foundry/kernel'
import type { ProjectContext } from './config.js'
import type { UserPromptSubmitInput } from './input.js'
import { additionalContext, type HookOutput } from './io.js'
import { promptQuery } from './prompt-query.js'

export interface RelevantFact {
  fact: Fact
  /** The kernel's `SearchHit.relevance`: about one per distinctive prompt word the fact contains. */
  relevance: number
}

/**
 * UserPromptSubmit: search memory with the user's own words and inject at most
 * `promptContext.maxFacts` (5) facts whose relevance is at least `promptContext.minScore` (3), plus
 * every runbook whose trigger phrase appears in the prompt. Prompts shorter than
 * `promptContext.minPromptLength` (12) characters are ignored. When nothing qualifies the hook
 * prints nothing at all: no context is cheaper than weak context.
 */
export async function promptContext(input: UserPromptSubmitInput, project: ProjectContext): Promise<HookOutput> {
  const settings = project.config.promptContext
  const prompt = input.prompt.trim()
  if (prompt.length < settings.minPromptLength) return undefined
  const [facts, runbooks] = await Promise.all([relevantFacts(prompt, project), project.kernel.runbooks.triggeredBy(prompt)])
  if (!facts.length && !runbooks.length) return undefined
  return additionalContext('UserPromptSubmit', renderContext(facts, runbooks, settings.minScore))
}

/** The facts worth injecting for `prompt`, best first. */
export async function relevantFacts(prompt: string, project: ProjectContext): Promise<RelevantFact[]> {
  const { maxFacts, minScore } = project.config.promptContext
  const query = promptQuery(prompt)
  if (maxFacts === 0 || !query) return []
  const { hits } = await project.kernel.memory.search({ query, limit: maxFacts })
  return hits.filter((hit) => hit.relevance >= minScore).map(({ fact, relevance }) => ({ fact, relevance }))
}

function renderContext(facts: RelevantFact[], runbooks: Runbook[], minScore: number): string {
  const parts: string[] = []
  if (facts.length) {
    const what = facts.length === 1 ? 'One stored fact matches' : `${facts.length} stored facts match`
    parts.push(`Foundry memory: ${what} this prompt (relevance ${minScore} or more). Search for others with memory_search.`)
    for (const { fact } of facts) parts.push(renderFactBlock(fact))
  }
  for (const runbook of runbooks) {
    parts.push(`Foundry runbook "${runbook.slug}", triggered by this prompt (trigger: ${runbook.trigger ?? ''}):`)
    parts.push(renderRunbook(runbook).trimEnd())
  }
  return parts.join('\n\n')
}
