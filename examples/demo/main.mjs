// `npm run demo`: a temporary project, `foundry mcp` started the way an MCP client starts it, and
// one call of every kind through the SDK's Client over stdio. Prints what it does; exits 1 if any
// answer is not what Foundry promises.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const mcpPackage = createRequire(import.meta.url).resolve('@foundry/cli/package.json')
const foundry = join(dirname(mcpPackage), JSON.parse(readFileSync(mcpPackage, 'utf8')).bin.foundry)
const project = mkdtempSync(join(tmpdir(), 'foundry-demo-'))
// `foundry init` makes the folder a project (.foundry/); nothing else creates one.
const init = spawnSync(process.execPath, [foundry, 'init'], { cwd: project, encoding: 'utf8' })
if (init.status !== 0) throw new Error(`foundry init failed: ${init.stderr}`)

const failures = []
const check = (ok, what) => ok || failures.push(what)
const show = (title, text) => console.log(`\n▸ ${title}\n${text.replace(/^(?=.)/gm, '  ')}`)

const client = new Client({ name: 'foundry-demo', version: '1.0.0' })
try {
  // A client starts the server in the project folder: that folder is the project root.
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [foundry, 'mcp'], cwd: project, stderr: 'inherit' }),
  )
  const server = client.getServerVersion()
  console.log(`Connected to ${server?.name} ${server?.version} in ${project}`)
  show('instructions (sent on initialize)', client.getInstructions() ?? '')
  check(server?.name === 'foundry', 'the server is named foundry')

  const { tools } = await client.listTools()
  show('tools/list', tools.map((t) => t.name).join(', '))
  check(tools.length === 11, "eleven tools (the seed's nine, memory_forget and memory_review)")

  const call = async (name, args = {}) => {
    const result = await client.callTool({ name, arguments: args })
    const text = result.content[0]?.text ?? ''
    show(`${name} ${JSON.stringify(args).slice(0, 90)}`, text)
    return { text, data: result.structuredContent, isError: result.isError === true }
  }

  const flyway = await call('memory_write', {
    title: 'Persistence layer uses Flyway, not Liquibase',
    body: 'Chosen for the plain-SQL migration format the team already reads.\nWhy: reviewers read SQL, not XML.\nHow to apply: add migrations as V<n>__<name>.sql.',
    type: 'decision',
    confidence: 'high',
    source: 'adr-0007',
  })
  check(flyway.data.action === 'created' && flyway.data.id === 'fact-0001', 'memory_write creates fact-0001')
  await call('memory_write', {
    title: 'API timeout is 30 seconds',
    body: 'Gateways cut requests at 35 s.',
    type: 'constraint',
  })
  const newer = await call('memory_write', {
    title: 'API timeout is 60 seconds',
    body: 'The gateway limit was raised to 65 s.',
    type: 'constraint',
  })
  check(
    newer.text.startsWith('created: fact-0003 (supersedes fact-0002)'),
    'a newer fact on the same subject supersedes the older one',
  )

  const search = await call('memory_search', { query: 'which database migration tool' })
  // memory_search answers in text alone (clients hand the model structuredContent in place of the text).
  check(/^### fact-0001 /.test(search.text), 'memory_search finds the Flyway decision')
  const timeout = await call('memory_search', { query: 'API timeout' })
  check(
    timeout.text.includes('fact-0003') && !timeout.text.includes('fact-0002'),
    'only the current timeout is returned',
  )

  const finding = {
    title: 'Orders endpoint lacks access control',
    severity: 'high',
    summary: 'One high finding: /api/orders serves any order to any signed-in user.',
  }
  const invalid = await call('contract_validate', { schema: 'finding.v1', data: finding })
  check(
    !invalid.data.valid && invalid.text.includes('missing required property "failureScenario"'),
    'contract_validate names the missing field',
  )
  const complete = {
    ...finding,
    failureScenario: 'A customer requests /api/orders/42 and reads another customer’s order.',
  }
  const valid = await call('contract_validate', { schema: 'finding.v1', data: complete })
  check(valid.text === 'VALID against finding.v1', 'the completed finding is valid')

  const written = await call('blackboard_write', {
    wave: 'audit',
    agent: 'appsec-reviewer',
    schema: 'finding.v1',
    data: complete,
  })
  check(
    written.data.written && written.data.path === '.foundry/blackboard/audit/appsec-reviewer.json',
    'blackboard_write writes the artifact',
  )
  const read = await call('blackboard_read', { wave: 'audit' })
  check(read.text.includes(complete.summary), 'blackboard_read returns the summary, not the artifact')

  const { contents } = await client.readResource({ uri: 'foundry://memory/index' })
  show('resources/read foundry://memory/index', contents[0].text)
  check(
    contents[0].text.includes('fact-0001 · high · Persistence layer uses Flyway'),
    'the memory index lists the decision',
  )

  const report = await call('token_report')
  check(
    report.data.facts === 2 && report.data.events.memory_write === 3,
    'token_report counts the facts and the recorded events',
  )
} catch (error) {
  failures.push(`unexpected error: ${error instanceof Error ? error.message : error}`)
} finally {
  await client.close()
  rmSync(project, { recursive: true, force: true })
}

if (failures.length) {
  console.error(`\nDemo FAILED:\n${failures.map((f) => `- ${f}`).join('\n')}`)
  process.exit(1)
}
console.log('\nDemo OK: every answer was what Foundry promises.')
