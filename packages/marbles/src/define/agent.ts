import { checkName, KIND } from './brand.js'

/** Where an agent's model runs: a provider (`anthropic`, `claude-code`, `codex`, …) and its model id. */
export interface ModelRoute {
  provider: string
  model: string
}

export interface AgentOptions {
  id: string
  instructions: string
  model?: ModelRoute
  description?: string
}

export interface AgentDefinition {
  readonly [KIND]: 'agent'
  readonly id: string
  readonly name: string
  readonly instructions: string
  readonly model: ModelRoute | undefined
  readonly description: string | undefined
}

/** Declare an agent (its id, instructions and model route). Part 2 of Marbles runs agents; this part lists them. */
export function agent(options: AgentOptions): AgentDefinition {
  const id = checkName('agent', options.id)
  if (typeof options.instructions !== 'string' || !options.instructions.trim())
    throw new TypeError(`agent ${id}: instructions must be a non-empty string`)
  if (
    options.model &&
    !(
      typeof options.model.provider === 'string' &&
      options.model.provider &&
      typeof options.model.model === 'string' &&
      options.model.model
    )
  )
    throw new TypeError(`agent ${id}: model must be { provider, model }, both non-empty strings`)
  return {
    [KIND]: 'agent',
    id,
    name: id,
    instructions: options.instructions,
    model: options.model,
    description: options.description,
  }
}
