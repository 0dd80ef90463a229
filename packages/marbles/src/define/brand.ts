/**
 * Definitions are recognised by a brand, never by `instanceof`: a workspace module imports its own
 * copy of `@foundry/marbles` (the bundled `marbles` bin holds another), and both must agree.
 */
export const KIND = Symbol.for('foundry.marbles.kind')

export type DefinitionKind = 'workflow' | 'step' | 'agent' | 'schedule' | 'monitor'

/** Read a value's brand; `undefined` for anything a workspace exports that is not a definition. */
export function kindOf(value: unknown): DefinitionKind | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  return (value as { [KIND]?: DefinitionKind })[KIND]
}

/** Names of workflows, steps, agents, schedules and monitors: a letter, then letters, digits, `-`, `_` or `.`. */
export const NAME_PATTERN = /^[A-Za-z][A-Za-z0-9._-]{0,79}$/

export function checkName(kind: DefinitionKind, name: unknown): string {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name))
    throw new TypeError(
      `${kind} name ${JSON.stringify(name)} is invalid: start with a letter; letters, digits, ".", "-" and "_" only; at most 80 characters`,
    )
  return name
}
