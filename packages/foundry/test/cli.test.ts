import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanup, cli, finding, flyway, tempDir, tempProject } from './helpers.js'

const COMMANDS = [
  'init',
  'write',
  'search',
  'show',
  'list',
  'history',
  'edit',
  'forget',
  'index',
  'tokens',
  'runbooks',
  'validate',
  'blackboard',
  'export',
  'import',
  'mcp',
]

const help = suite('cli: help and usage')
help.after(cleanup)

help('--help lists every command and the global options', () => {
  const { code, stdout } = cli(['--help'])
  assert.is(code, 0)
  for (const name of COMMANDS) assert.match(stdout, new RegExp(`\\n  ${name}\\b`), name)
  for (const option of ['--root <dir>', '--storage <kind>', '--json', '--debug'])
    assert.ok(stdout.includes(option), option)
})

help('every command has --help, with its own options and the global ones', () => {
  for (const args of [...COMMANDS.map((c) => [c]), ['blackboard', 'read'], ['blackboard', 'write']]) {
    const { code, stdout } = cli([...args, '--help'])
    assert.is(code, 0, args.join(' '))
    assert.match(stdout, `Usage: foundry ${args.join(' ')}`)
    assert.match(stdout, 'Global Options:')
  }
  const write = cli(['write', '--help']).stdout.replace(/\s+/g, ' ')
  assert.match(
    write,
    '--type <type> the kind of fact (choices: "decision", "constraint", "convention", "domain", "risk", "metric", "glossary")',
  )
})

help('usage errors exit non-zero with one line on stderr', () => {
  const unknown = cli(['frobnicate'])
  assert.is(unknown.code, 1)
  assert.match(unknown.stderr, /^error: unknown command 'frobnicate'/)
  const missing = cli(['write', '--title', 'T', '--body', 'B'])
  assert.is(missing.code, 1)
  assert.match(missing.stderr, /^error: required option '--type <type>' not specified/)
  const choice = cli(['list', '--status', 'gone'])
  assert.is(choice.code, 1)
  assert.match(choice.stderr, /^error: option '--status <status>' argument 'gone' is invalid/)
})

help.run()

const flow = suite<{ root: string }>('cli: a project from init to export')
flow.before((ctx) => {
  ctx.root = tempDir()
})
flow.after(cleanup)

flow('init writes config.json and the index; a second init keeps them', ({ root }) => {
  const first = cli(['init'], { cwd: root })
  assert.is(first.code, 0, first.stderr)
  assert.is(
    first.stdout,
    `Initialised ${join(root, '.foundry')} (storage fs)\nRebuilt ${join(root, '.foundry', 'memory', 'INDEX.md')}\n0/0 facts listed, ~${first.stdout.match(/~(\d+) tokens/)?.[1]} tokens, 0 omitted.\n`,
  )
  assert.equal(JSON.parse(readFileSync(join(root, '.foundry', 'config.json'), 'utf8')), { storage: { kind: 'fs' } })
  assert.ok(existsSync(join(root, '.foundry', 'memory', 'INDEX.md')))
  const second = cli(['init'], { cwd: root })
  assert.match(second.stdout, `Already initialised: ${join(root, '.foundry', 'config.json')} (storage fs)`)
  const other = cli(['init', '--storage', 'sqlite'], { cwd: root })
  assert.is(other.code, 1)
  assert.is(other.stderr.trim().split('\n').length, 1)
  assert.match(other.stderr, 'The project already uses storage "fs"')
})

flow('write and search print the seed texts; --json the tool structured content', ({ root }) => {
  const write = cli(
    [
      'write',
      '--title',
      flyway.title,
      '--body',
      '-',
      '--type',
      'decision',
      '--confidence',
      'high',
      '--source',
      'adr-0007',
      '--tags',
      'db,migrations',
    ],
    { cwd: root, input: flyway.body },
  )
  assert.is(write.code, 0, write.stderr)
  assert.match(write.stdout, /^created: fact-0001\nIndex: 1\/1 facts listed, ~\d+ tokens, 0 omitted over budget\.\n$/)
  const search = cli(['search', 'flyway'], { cwd: root })
  assert.is(
    search.stdout,
    `### fact-0001 · decision · confidence high\n**${flyway.title}**\n${flyway.body}\n_source: adr-0007 · scope: project_\n`,
  )
  const json = JSON.parse(cli(['search', 'flyway', '--json'], { cwd: root }).stdout)
  assert.is(json.query, 'flyway')
  assert.equal(json.hits[0].fact.tags, ['db', 'migrations'])
  const none = cli(['search', 'kubernetes', '--type', 'risk', '--limit', '3'], { cwd: root })
  assert.is(none.stdout, 'No stored fact matches "kubernetes". Memory holds 1 active facts.\n')
})

flow('a kernel validation error is one line naming the field, exit 1; --debug adds the stack', ({ root }) => {
  const long = cli(['write', '--title', 'x'.repeat(81), '--body', 'B', '--type', 'domain'], { cwd: root })
  assert.is(long.code, 1)
  assert.is(long.stdout, '')
  assert.is(long.stderr, 'error: Invalid memory_write input: title must be at most 80 characters\n')
  const debug = cli(['write', '--title', 'x'.repeat(81), '--body', 'B', '--type', 'domain', '--debug'], { cwd: root })
  assert.match(debug.stderr, /^error: FoundryError: Invalid memory_write input[^\n]*\n\s+at /)
})

flow('list: active by default, superseded and all on request', ({ root }) => {
  cli(['write', '--title', 'API timeout is 30 seconds', '--body', 'Gateways cut at 35 s.', '--type', 'constraint'], {
    cwd: root,
  })
  cli(
    [
      'write',
      '--title',
      'API timeout is 60 seconds',
      '--body',
      'Gateways cut at 65 s.',
      '--type',
      'constraint',
      '--scope',
      'project',
    ],
    { cwd: root },
  )
  assert.is(
    cli(['list'], { cwd: root }).stdout,
    `fact-0001 · decision · high · ${flyway.title}\nfact-0003 · constraint · medium · API timeout is 60 seconds\n`,
  )
  assert.is(
    cli(['list', '--status', 'superseded'], { cwd: root }).stdout,
    'fact-0002 · constraint · medium · API timeout is 30 seconds (superseded by fact-0003)\n',
  )
  assert.is(
    cli(['list', '--status', 'all', '--type', 'constraint', '--json'], { cwd: root }).stdout.match(/"id"/g)?.length,
    2,
  )
  assert.is(cli(['list', '--type', 'glossary'], { cwd: root }).stdout, 'No active glossary facts.\n')
})

flow('write --no-supersede keeps the older fact active and names it as similar', () => {
  const root = tempProject()
  cli(
    ['write', '--title', 'Retry budget is 3 attempts', '--body', 'Clients retry three times.', '--type', 'convention'],
    { cwd: root },
  )
  const kept = cli(
    [
      'write',
      '--title',
      'Retry budget is 5 attempts',
      '--body',
      'Batch jobs retry five times.',
      '--type',
      'convention',
      '--no-supersede',
    ],
    { cwd: root },
  )
  assert.is(kept.code, 0, kept.stderr)
  assert.match(kept.stdout, /^created: fact-\d+\nIndex: /)
  assert.match(
    kept.stdout,
    /\nsimilar: fact-\d+ "Retry budget is 3 attempts" \(not superseded: .*; pass supersedes: "fact-\d+" to replace it\)/,
  )
  const json = JSON.parse(cli(['list', '--type', 'convention', '--json'], { cwd: root }).stdout) as { facts: unknown[] }
  assert.is(json.facts.length, 2, 'both active')
})

flow('index and tokens', ({ root }) => {
  assert.match(
    cli(['index'], { cwd: root }).stdout,
    /^Rebuilt .*INDEX\.md\n2\/2 facts listed, ~\d+ tokens, 0 omitted\.\n$/,
  )
  const tokens = cli(['tokens'], { cwd: root })
  assert.match(
    tokens.stdout,
    /^Foundry token accounting\n\n {2}memory index \(always loaded\) {3}~\d+ tokens {2}\(budget 4000\)\n {2}facts, retrieved on demand {5}~\d+ tokens across 2 facts\n/,
  )
  assert.match(
    tokens.stdout,
    /\n\nEstimates use ~4 characters per token\. For billed usage see \/cost and \/usage\.\nMCP tools\/list: ~\d+ tokens for 11 tools, in every session that loads the server\.\n$/,
  )
  const figures = JSON.parse(cli(['tokens', '--json'], { cwd: root }).stdout)
  assert.is(figures.facts, 2)
  assert.is(figures.indexBudget, 4000)
})

flow('validate: exit 0 when valid, 1 with the violations on stdout when not; stdin with -', ({ root }) => {
  writeFileSync(join(root, 'finding.json'), JSON.stringify(finding))
  const valid = cli(['validate', 'finding.v1', 'finding.json'], { cwd: root })
  assert.is(valid.code, 0)
  assert.is(valid.stdout, 'VALID against finding.v1\n')
  const invalid = cli(['validate', 'finding.v1', '-'], {
    cwd: root,
    input: JSON.stringify({ title: 't', severity: 'low' }),
  })
  assert.is(invalid.code, 1)
  assert.is(invalid.stdout, 'INVALID against finding.v1:\n- missing required property "failureScenario"\n')
  assert.is(invalid.stderr, '')
  const broken = cli(['validate', 'finding.v1'], { cwd: root, input: '{ nope' })
  assert.is(broken.code, 1)
  assert.match(broken.stderr, /^error: stdin is not valid JSON: /)
  const missing = cli(['validate', 'finding.v1', 'missing.json'], { cwd: root })
  assert.is(missing.stderr, 'error: Cannot read missing.json: ENOENT\n')
  const unknown = cli(['validate', 'nope.v1', 'finding.json'], { cwd: root })
  assert.is(
    unknown.stderr,
    'error: Unknown contract "nope.v1". Available: facts.proposal.v1, finding.v1, handoff.v1, review.v1.\n',
  )
})

flow('blackboard write and read', ({ root }) => {
  const rejected = cli(['blackboard', 'write', 'audit', 'appsec-reviewer', 'finding.v1'], {
    cwd: root,
    input: JSON.stringify({ title: 't', severity: 'low' }),
  })
  assert.is(rejected.code, 1)
  assert.match(rejected.stdout, /^Rejected: artifact does not satisfy finding\.v1\./)
  const written = cli(['blackboard', 'write', 'audit', 'appsec-reviewer', 'finding.v1', 'finding.json'], { cwd: root })
  assert.is(written.code, 0, written.stderr)
  assert.match(
    written.stdout,
    /^Wrote \.foundry\/blackboard\/audit\/appsec-reviewer\.json \(\d+ bytes, ~\d+ tokens\)\.\nReturn to your caller ONLY this path/,
  )
  const read = cli(['blackboard', 'read', 'audit'], { cwd: root })
  assert.match(
    read.stdout,
    /^- \*\*appsec-reviewer\.json\*\* · schema finding\.v1 · by appsec-reviewer · ~\d+ tokens\n {2}Six findings/,
  )
  const full = JSON.parse(
    cli(['blackboard', 'read', 'audit', '--agent', 'appsec-reviewer', '--full', '--json'], { cwd: root }).stdout,
  )
  assert.is(full.artifacts.length, 1)
})

flow('runbooks: none yet, then an unknown slug is an error', ({ root }) => {
  assert.is(
    cli(['runbooks'], { cwd: root }).stdout,
    'No runbooks yet. Create one with the runbook-author skill after any task worth repeating.\n',
  )
  const unknown = cli(['runbooks', 'deploy'], { cwd: root })
  assert.is(unknown.code, 1)
  assert.is(unknown.stderr, 'error: Unknown runbook "deploy". Available: none.\n')
})

flow('--root and FOUNDRY_ROOT choose the project from anywhere', ({ root }) => {
  assert.match(cli(['list', '--root', root]).stdout, /^fact-0001/)
  assert.match(cli(['list'], { env: { FOUNDRY_ROOT: root } }).stdout, /^fact-0001/)
})

flow('export to a folder, import into a SQLite project, the same answers', ({ root }) => {
  const out = tempDir()
  const exported = cli(['export', out], { cwd: root })
  assert.is(exported.code, 0, exported.stderr)
  assert.match(exported.stdout, /^Exported 3 facts, 0 runbooks, 0 contracts, 1 artifacts, \d+ events to /)
  assert.ok(existsSync(join(out, '.foundry', 'memory', 'facts', 'fact-0003.md')))
  const target = tempDir()
  assert.is(cli(['init', '--storage', 'sqlite'], { cwd: target }).code, 0)
  const imported = cli(['import', out], { cwd: target })
  assert.is(imported.code, 0, imported.stderr)
  assert.match(imported.stdout, /^Imported 3 facts, 0 runbooks, 0 contracts, 1 artifacts, \d+ events from .*\nRebuilt /)
  assert.ok(existsSync(join(target, '.foundry', 'foundry.db')))
  assert.is(
    cli(['list', '--status', 'all'], { cwd: target }).stdout,
    cli(['list', '--status', 'all'], { cwd: root }).stdout,
  )
  assert.is(cli(['search', 'flyway'], { cwd: target }).stdout, cli(['search', 'flyway'], { cwd: root }).stdout)
  const self = cli(['export', root], { cwd: root })
  assert.is(self.code, 1)
  assert.match(self.stderr, /is the project itself/)
})

flow('an invalid config.json is one line naming the file and the key', ({ root }) => {
  const bad = tempProject({ memoryRetrieval: { maxFacts: 100 } })
  const result = cli(['search', 'x'], { cwd: bad })
  assert.is(result.code, 1)
  assert.is(
    result.stderr,
    `error: Invalid ${join(bad, '.foundry', 'config.json')}: memoryRetrieval.maxFacts must be <= 25\n`,
  )
  writeFileSync(join(bad, '.foundry', 'config.json'), '{ "storage": ')
  assert.match(
    cli(['list'], { cwd: bad }).stderr,
    new RegExp(`^error: Invalid ${join(bad, '.foundry', 'config.json')}: not JSON \\(`),
  )
  assert.ok(root)
})

flow.run()
