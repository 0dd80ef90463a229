import { ARTIFACT_MAX_BYTES, FoundryError, JSON_MAX_DEPTH, measureJson } from '@foundry/kernel'

/** The most a dispatch's input may take, measured as the kernel measures an artifact (pretty JSON): 1 MiB. */
export const INPUT_MAX_BYTES = ARTIFACT_MAX_BYTES

/** How much one run may journal. Past either bound, log lines are dropped (one `warn` line says so) and a step or timer fails the run. */
export interface JournalLimits {
  /** Records in the run's journal. Default 10 000. */
  lines: number
  /** Bytes of the journal's records as stored (one JSON a line). Default 16 MiB. */
  bytes: number
}

export const JOURNAL_LIMITS: JournalLimits = { lines: 10_000, bytes: 16 * 1024 * 1024 }

/**
 * Throws INVALID_INPUT naming `field` (a dispatch's `input`, a signal's `data`) when the value nests
 * deeper than the kernel's `JSON_MAX_DEPTH` or is over `INPUT_MAX_BYTES`: checked before its schema
 * (whose checks recurse) and before anything is journaled; `outcome` says what did not happen.
 */
export function assertInputWithin(input: unknown, field = 'input', outcome = 'no run was created'): void {
  const { bytes, depth } = measureJson(input, INPUT_MAX_BYTES)
  if (depth > JSON_MAX_DEPTH)
    throw new FoundryError(
      'INVALID_INPUT',
      `${field} is nested more than ${JSON_MAX_DEPTH} levels deep: flatten it (${outcome})`,
    )
  if (bytes > INPUT_MAX_BYTES)
    throw new FoundryError(
      'INVALID_INPUT',
      `${field} is over ${INPUT_MAX_BYTES / (1024 * 1024)} MiB as JSON: pass large data as a file path or an artifact name instead (${outcome})`,
    )
}

/** The journal bounds from `partial` over the defaults; INVALID_INPUT naming the option when one is not a positive whole number. */
export function journalLimits(partial: Partial<JournalLimits> = {}): JournalLimits {
  const limits = { ...JOURNAL_LIMITS, ...partial }
  for (const [key, value] of Object.entries(limits))
    if (!Number.isSafeInteger(value) || value < 100)
      throw new FoundryError(
        'INVALID_INPUT',
        `journal.${key} (--journal-${key}) must be a whole number of at least 100, got ${value}`,
      )
  return limits
}
