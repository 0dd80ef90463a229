import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
// @foundry/project is not a dependency of this package (it depends on this one); its build is.
import { openProject } from '../../project/dist/index.js'
import { useServer } from './helpers.js'

const server = useServer(test)

async function rows<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<R>(text)).rows
  } finally {
    await client.end()
  }
}

test('config.json names storage and retrieval "postgres": two instances share one index, and the second searches without re-indexing', async () => {
  const url = await server.fresh()
  const root = mkdtempSync(join(tmpdir(), 'foundry-pg-retrieval-'))
  try {
    mkdirSync(join(root, '.foundry'))
    writeFileSync(
      join(root, '.foundry', 'config.json'),
      JSON.stringify({ storage: { kind: 'postgres', url }, retrieval: { kind: 'postgres' } }),
    )
    const writer = await openProject({ root })
    await writer.kernel.memory.write({
      title: 'Deployments require two approvals',
      body: 'Production releases need two reviewers.',
      type: 'constraint',
    })
    // The first search builds the index; from then on each write sends its change.
    assert.is((await writer.kernel.memory.search({ query: 'approvals' })).hits.length, 1)
    await writer.kernel.memory.write({
      title: 'Orders are final once paid',
      body: '注文は決済後に確定する。',
      type: 'domain',
    })
    await writer.kernel.memory.write({
      title: 'Payments use Stripe webhooks',
      body: 'Why: retries are idempotent. How to apply: verify signatures.',
      type: 'convention',
      scope: 'module:billing',
    })

    const indexed = await rows<{ id: string; xmin: string }>(
      url,
      'SELECT id, xmin::text FROM foundry_retriever_docs ORDER BY id',
    )
    assert.equal(
      indexed.map((r) => r.id),
      ['fact-0001', 'fact-0002', 'fact-0003'],
      'the writer kept the shared index in step, write by write',
    )
    const reader = await openProject({ root })
    assert.is((await reader.kernel.memory.search({ query: 'deploying approval' })).hits[0]?.fact.id, 'fact-0001')
    assert.is((await reader.kernel.memory.search({ query: '決済' })).hits[0]?.fact.id, 'fact-0002')
    assert.equal(
      (await reader.kernel.memory.search({ query: 'stripe', scope: 'module:billing' })).hits.map((h) => h.fact.id),
      ['fact-0003'],
    )
    assert.equal(
      await rows(url, 'SELECT id, xmin::text FROM foundry_retriever_docs ORDER BY id'),
      indexed,
      'no row rewritten: the reader did not re-index',
    )

    // A correction by the writer reaches the reader's next search through the shared index.
    await writer.kernel.memory.write({
      title: 'Payments use Adyen webhooks',
      body: 'Why: retries are idempotent. How to apply: verify signatures.',
      type: 'convention',
      scope: 'module:billing',
      supersedes: 'fact-0003',
    })
    assert.equal(
      (await reader.kernel.memory.search({ query: 'stripe', scope: 'module:billing' })).hits,
      [],
      'superseded',
    )
    assert.equal(
      (await reader.kernel.memory.search({ query: 'adyen' })).hits.map((h) => h.fact.id),
      ['fact-0004'],
    )
    const [state] = await rows<{ revision: string; docs: string }>(
      url,
      'SELECT revision, docs FROM foundry_retriever_index',
    )
    assert.is(state!.docs, '3', 'three active facts indexed')
    await writer.close()
    await reader.close()
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

test('config.json names no retrieval: bm25 in process, ranked as the Postgres retriever on its english lexemes', async () => {
  const url = await server.fresh()
  const root = mkdtempSync(join(tmpdir(), 'foundry-pg-default-'))
  try {
    mkdirSync(join(root, '.foundry'))
    writeFileSync(join(root, '.foundry', 'config.json'), JSON.stringify({ storage: { kind: 'postgres', url } }))
    const project = await openProject({ root })
    assert.equal(project.adapters.retrieval, { kind: 'bm25', options: { analysis: 'english', ranking: 'postgres' } })
    await project.kernel.memory.write({
      title: 'Deployments require two approvals',
      body: 'Production releases need two reviewers.',
      type: 'constraint',
    })
    await project.kernel.memory.write({ title: 'Retries back off', body: 'Jobs are retried.', type: 'domain' })
    // Snowball's stems (approv), and a query word the index lacks widened to the words it begins.
    assert.equal(
      (await project.kernel.memory.search({ query: 'approving deploym' })).hits.map((h) => h.fact.id),
      ['fact-0001'],
    )
    await project.close()
    const [tables] = await rows<{ n: string }>(
      url,
      "SELECT count(*)::text AS n FROM pg_tables WHERE tablename = 'foundry_retriever_docs'",
    )
    assert.is(tables!.n, '0', "the Postgres retriever's tables are not made")
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

test.run()
