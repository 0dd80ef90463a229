import type { Fact } from '../schema/fact.js'
import type { Artifact, Contract, Runbook } from '../schema/records.js'

/** A fact using every field, with text that is hard for front matter and markdown. */
export function sampleFact(n: number, overrides: Partial<Fact> = {}): Fact {
  return {
    id: `fact-${String(n).padStart(4, '0')}`,
    title: `Title #${n}: "quoted", colon: and 'apostrophe' — ünïcode`,
    body: `Why: because.\n---\nHow to apply: with care; # not a heading\n\n- a list item\n  indented: yes`,
    type: 'decision',
    scope: 'module:billing',
    tags: ['db', 'migrations'],
    confidence: 'high',
    source: 'adr-0007',
    created: '2026-01-02T03:04:05.678Z',
    expires: '2099-12-31',
    supersedes: 'fact-0001',
    status: 'active',
    ...overrides,
  }
}

export const sampleRunbook: Runbook = {
  slug: 'deploy-production',
  title: 'Deploy to production',
  trigger: 'deploy, release to prod',
  body: '1. Run the tests.\n2. Tag the release: `git tag v1.2.3`.\n\n---\n\nRoll back with `deploy --undo`.',
}

export const sampleContract: Contract = {
  id: 'incident.v1',
  schema: { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } } },
}

export const sampleArtifact: Artifact = {
  wave: 'audit',
  agent: 'appsec-reviewer',
  data: {
    schema: 'review.v1',
    producedBy: 'appsec-reviewer',
    summary: 'Six findings, two high.',
    findings: [],
    nested: { a: [1, 2, { b: null }] },
  },
}

/** A runbook, a contract and an artifact, as hard for a storage's encoding as `sampleFact` (kept under their collection's key: `runbook.slug`, `contract.id`, `audit/appsec-reviewer`). */
export const sampleRecords = { runbook: sampleRunbook, contract: sampleContract, artifact: sampleArtifact } as const
