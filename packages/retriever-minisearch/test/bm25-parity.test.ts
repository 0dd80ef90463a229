import { bm25Retriever } from '@foundry/kernel'
import type { RetrievalDoc } from '@foundry/kernel/adapter'
import { distractors } from '@foundry/kernel/testing'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { minisearchRetriever } from '../src/index.js'

const docs: RetrievalDoc[] = [
  ...distractors(200),
  {
    id: 'fact-0001',
    title: 'Kubernetes manifests live in the infra repository',
    body: 'Helm charts are rendered in CI.',
    tags: ['infra', 'k8s'],
    type: 'decision',
    scope: 'project',
  },
  {
    id: 'fact-0002',
    title: 'Payments use Stripe',
    body: 'Stripe webhooks are verified; payments retry three times.',
    tags: ['payments'],
    type: 'constraint',
    scope: 'module:billing',
  },
]
const queries = [
  'module team standard',
  'kubernet',
  'kubernetse charts',
  'stripe payments webhooks retry',
  'logging uses structured JSON',
  'how do we apply the caching module standard',
  'infra',
]

test('the same hits and scores as the bm25 retriever', async () => {
  const ours = bm25Retriever()
  const theirs = minisearchRetriever()
  for (const r of [ours, theirs]) await r.apply({ revision: '1', reset: true, upsert: docs, remove: [] })
  for (const text of queries) {
    const a = await ours.search({ text, limit: 10 })
    const b = await theirs.search({ text, limit: 10 })
    assert.equal(
      a.map((h) => h.id),
      b.map((h) => h.id),
      `ids for "${text}"`,
    )
    a.forEach((h, i) =>
      assert.ok(
        Math.abs(h.score - b[i]!.score) < 1e-9 * Math.max(1, h.score),
        `score of ${h.id} for "${text}": ${h.score} vs ${b[i]!.score}`,
      ),
    )
  }
})

test.run()
