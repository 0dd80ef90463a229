import type { Confidence, FactType } from '@foundry/kernel'

/**
 * The allowed values of the CLI's enum options, for commander's `.choices()` and help. They are
 * written out so the kernel loads only when a command runs; the compiler checks that each list
 * names exactly the values of the kernel's type.
 */
function allValues<T extends string>() {
  return <const L extends readonly T[]>(
    values: L & ([Exclude<T, L[number]>] extends [never] ? unknown : `missing ${Exclude<T, L[number]>}`),
  ) => values
}

export const FACT_TYPES = allValues<FactType>()([
  'decision',
  'constraint',
  'convention',
  'domain',
  'risk',
  'metric',
  'glossary',
])
export const CONFIDENCES = allValues<Confidence>()(['high', 'medium', 'low'])
export const FACT_STATUSES = ['active', 'superseded', 'expired', 'forgotten', 'all'] as const
