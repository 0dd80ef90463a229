import type { createKernel } from '@foundry/kernel'

type KernelHints = Required<NonNullable<Parameters<typeof createKernel>[0]['hints']>>

/** The kernel's texts in the words of the foundry CLI and Claude Code (the kernel itself names no host). */
export const FOUNDRY_HINTS: KernelHints = {
  noRunbooks: 'Create one with the runbook-author skill after any task worth repeating.',
  listFacts: 'List ids with `foundry list --status all`.',
  billedUsage: 'For billed usage see /cost and /usage.',
}
