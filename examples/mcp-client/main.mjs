// A program that drives `foundry mcp` through the MCP SDK client and works with the tools'
// structuredContent where a tool has one (memory_search answers in text alone, because clients hand
// the model structuredContent in place of the text): it records a project's decisions from a list (the way a
// script would import ADRs), then prints a decision log from search results, checks an artifact, and
// handles the error results a model would see. Start from here to script Foundry from any language
// an MCP SDK exists for.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const mcpPackage = createRequire(import.meta.url).resolve('@foundry/cli/package.json')
const foundry = join(dirname(mcpPackage), JSON.parse(readFileSync(mcpPackage, 'utf8')).bin.foundry)
const root = mkdtempSync(join(tmpdir(), 'foundry-client-'))
// `foundry init` makes the folder a project; the server answers every tool with an error until then.
assert.equal(spawnSync(process.execPath, [foundry, 'init'], { cwd: root }).status, 0, 'foundry init')

const decisions = [
  {
    adr: 'adr-0003',
    title: 'Services talk over gRPC inside the cluster',
    why: 'typed contracts and streaming',
    apply: 'define every internal API in proto/',
  },
  {
    adr: 'adr-0005',
    title: 'PostgreSQL is the system of record',
    why: 'transactions across orders and payments',
    apply: 'no second database without an ADR',
  },
  {
    adr: 'adr-0007',
    title: 'Persistence layer uses Flyway, not Liquibase',
    why: 'reviewers read SQL, not XML',
    apply: 'add migrations as V<n>__<name>.sql',
  },
]

const client = new Client({ name: 'foundry-mcp-client-example', version: '1.0.0' })
// `--root` names the project; without it the server uses the nearest project at or above its working directory.
await client.connect(
  new StdioClientTransport({ command: process.execPath, args: [foundry, 'mcp', '--root', root], stderr: 'inherit' }),
)

/** Call a tool and return its structured result; an error result (`isError`) becomes an exception with the tool's message. */
async function tool(name, args) {
  const result = await client.callTool({ name, arguments: args })
  if (result.isError) throw new Error(result.content[0].text)
  return result.structuredContent // shaped as the tool's output schema in @foundry/kernel/tools
}

try {
  for (const d of decisions) {
    const body = `Recorded from ${d.adr}.\nWhy: ${d.why}.\nHow to apply: ${d.apply}.`
    const written = await tool('memory_write', {
      title: d.title,
      body,
      type: 'decision',
      confidence: 'high',
      source: d.adr,
      tags: ['adr'],
    })
    console.log(`${written.action} ${written.id} from ${d.adr} (index ~${written.index.tokens} tokens)`)
  }
  // Recording the same ADR twice is harmless: Foundry deduplicates.
  assert.equal(
    (
      await tool('memory_write', {
        title: decisions[0].title,
        body: `Recorded from adr-0003.\nWhy: typed contracts and streaming.\nHow to apply: define every internal API in proto/.`,
        type: 'decision',
        source: 'adr-0003',
      })
    ).action,
    'duplicate',
  )

  // A decision log from a search: memory_search answers in text (the best hit whole, the others one
  // line each: `- fact-0002 <title>`), so a script reads the ids from it.
  const found = await client.callTool({
    name: 'memory_search',
    arguments: { query: 'database migrations postgres grpc', type: 'decision', limit: 10 },
  })
  const text = found.content[0].text
  const ids = [...new Set(text.match(/\bfact-\d{4}\b/g))].sort()
  console.log(`\nDecision log: ${ids.join(', ')}\n${text}`)
  assert.deepEqual(ids, ['fact-0001', 'fact-0002', 'fact-0003'])

  // Contracts: the verdict and the violations as data.
  const check = await tool('contract_validate', {
    schema: 'review.v1',
    data: { summary: 'Schema changes look safe.', verdict: 'approve', findings: [] },
  })
  console.log(`\nreview.v1: ${check.valid ? 'valid' : check.violations.join('; ')}`)
  assert.equal(check.valid, true)

  // Error results carry a message meant for a model to act on; a program can show it or branch on it.
  await assert.rejects(
    tool('runbook_get', { slug: 'deploy' }),
    /^Error: runbook_get failed: Unknown runbook "deploy"\. Available: none\.$/,
  )
  await assert.rejects(tool('memory_search', { query: 'x', limit: 100 }), /limit must be/)

  const { resources } = await client.listResources()
  console.log(`\nResources: ${resources.map((r) => r.uri).join(', ')}`)
  const figures = await tool('token_report', {})
  console.log(
    `Index ~${figures.indexTokens} tokens for ${figures.facts} facts; eager loading would cost ~${figures.eagerTokens}.`,
  )
  assert.equal(figures.facts, 3)
  console.log('mcp-client: ok')
} finally {
  await client.close()
  rmSync(root, { recursive: true, force: true })
}
