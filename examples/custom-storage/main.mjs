// A storage written outside Foundry, registered in one place (the project's config.json), and used
// by the foundry CLI and the MCP server with no change to any Foundry package:
//   1. json-file-storage.mjs passes Foundry's storage conformance suite (json-file-storage.test.mjs);
//   2. a project's .foundry/config.json names it: "adapters" loads the module, "storage" picks its kind;
//   3. the built `foundry` CLI writes and searches through it, and `foundry mcp` serves it to the MCP
//      SDK's own client; every fact lands in the one JSON file.
// Exits non-zero when any of it is wrong.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const here = dirname(fileURLToPath(import.meta.url))
const mcpPackage = createRequire(import.meta.url).resolve('@foundry/cli/package.json')
const foundry = join(dirname(mcpPackage), JSON.parse(readFileSync(mcpPackage, 'utf8')).bin.foundry)

// 1. The conformance suite, in its own process (uvu prints each case).
const suite = spawnSync(process.execPath, [join(here, 'json-file-storage.test.mjs')], { encoding: 'utf8' })
process.stdout.write(
  suite.stdout
    .split('\n')
    .filter((line) => /Total|Passed|FAIL/.test(line))
    .join('\n') + '\n',
)
assert.equal(suite.status, 0, `the storage suite failed:\n${suite.stdout}${suite.stderr}`)

// 2. A project whose config.json registers the module and chooses its kind. In a real project the
// path is relative to the project root ("./adapters/json-file-storage.mjs") or a package name; this
// project is a temporary folder, so it names the module by its absolute path.
const root = mkdtempSync(join(tmpdir(), 'foundry-custom-storage-'))
mkdirSync(join(root, '.foundry'))
writeFileSync(
  join(root, '.foundry', 'config.json'),
  JSON.stringify({ adapters: [join(here, 'json-file-storage.mjs')], storage: { kind: 'json-file' } }, null, 2),
)
const store = join(root, '.foundry', 'foundry.json')
const stored = () => JSON.parse(readFileSync(store, 'utf8')).collections.facts ?? {}

/** The built `foundry` CLI in the project, as a user runs it. */
function cli(...args) {
  const run = spawnSync(process.execPath, [foundry, ...args], { cwd: root, encoding: 'utf8' })
  assert.equal(run.status, 0, `foundry ${args.join(' ')} exited ${run.status}: ${run.stderr}`)
  return run.stdout
}

const client = new Client({ name: 'foundry-custom-storage-example', version: '1.0.0' })
try {
  // 3a. The CLI: init recognises the project's storage; write, search and list go through it.
  assert.match(cli('init'), /^Already initialised: .*config\.json \(storage json-file\)\n/)
  const written = cli(
    'write',
    '--title',
    'Invoices are numbered per tenant, without gaps',
    '--body',
    'A sequence row per tenant, locked in the same transaction.\nWhy: auditors check for gaps.\nHow to apply: never use a global sequence.',
    '--type',
    'decision',
    '--source',
    'adr-0012',
  )
  assert.match(written, /^created: fact-0001\n/)
  assert.match(cli('search', 'invoice numbering gaps'), /\*\*Invoices are numbered per tenant, without gaps\*\*/)
  assert.equal(stored()['fact-0001']?.source, 'adr-0012', 'the fact is in the JSON file')
  assert.ok(!existsSync(join(root, '.foundry', 'memory', 'facts')), 'and nowhere else: no folder layout')
  console.log(`CLI: wrote and found fact-0001 in ${store}`)

  // 3b. The MCP server over stdio, driven by the SDK's own client.
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [foundry, 'mcp'], cwd: root, stderr: 'inherit' }),
  )
  const tool = async (name, args = {}) => {
    const result = await client.callTool({ name, arguments: args })
    assert.ok(!result.isError, `${name}: ${result.content[0]?.text}`)
    return result.structuredContent
  }
  const second = await tool('memory_write', {
    title: 'Money is stored as integer minor units',
    body: 'Amounts are bigint minor units with an ISO currency code.\nWhy: floats lost pennies.\nHow to apply: use the Money type.',
    type: 'decision',
  })
  assert.equal(second.id, 'fact-0002')
  // memory_search answers in text alone: the best hit first, whole, under its `### <id>` heading.
  const found = await client.callTool({ name: 'memory_search', arguments: { query: 'invoice numbering per tenant' } })
  assert.match(found.content[0].text, /^### fact-0001 /, 'the server finds what the CLI wrote')
  assert.equal((await tool('token_report')).facts, 2)
  await client.close()
  assert.equal(
    stored()['fact-0002']?.title,
    'Money is stored as integer minor units',
    'the server wrote to the JSON file',
  )
  assert.match(
    cli('list'),
    /^fact-0001 · decision · medium · Invoices are numbered per tenant, without gaps\nfact-0002 · decision · medium · Money is stored as integer minor units\n$/,
  )
  console.log('MCP: wrote fact-0002 and found fact-0001 through foundry mcp; the CLI lists both')
  console.log('custom-storage: ok')
} finally {
  await client.close().catch(() => {})
  rmSync(root, { recursive: true, force: true })
}
