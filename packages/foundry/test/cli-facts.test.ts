import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { estimateTokens } from '@foundry/kernel'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { listTools } from '@foundry/mcp'
import { cleanup, cli, tempDir } from './helpers.js'

const block = (id: string, title: string, body: string, type = 'constraint') =>
  `### ${id} · ${type} · confidence medium\n**${title}**\n${body}\n_source: conversation · scope: project_`

/** A project holding fact-0001 (superseded by fact-0002), fact-0002 and fact-0003. */
function project(): string {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  for (const [title, body, type] of [
    ['API timeout is 30 seconds', 'Gateways cut at 35 s.', 'constraint'],
    ['API timeout is 60 seconds', 'Gateways cut at 65 s.', 'constraint'],
    ['Money is stored in integer cents', 'Never floats.', 'convention'],
  ] as const) {
    const write = cli(['write', '--title', title, '--body', body, '--type', type, '--tags', 'api'], { cwd: root })
    assert.is(write.code, 0, write.stderr)
  }
  return root
}

/** An `$EDITOR`: a node script that rewrites the file it is given with `edit(text)`. */
function editor(edit: string): string {
  const script = join(tempDir(), 'editor.mjs')
  writeFileSync(
    script,
    `import { readFileSync, writeFileSync } from 'node:fs'\nconst file = process.argv[2]\nconst edit = ${edit}\nwriteFileSync(file, edit(readFileSync(file, 'utf8')))\n`,
  )
  return `"${process.execPath}" "${script}"`
}

const facts = (root: string) => cli(['list', '--status', 'all'], { cwd: root }).stdout

const test = suite('cli: show, history, forget, edit, tokens')
test.after(cleanup)

test('show: the block, the status, and the links, whatever the status; an unknown id is one line, exit 1', () => {
  const root = project()
  const active = cli(['show', 'fact-0002'], { cwd: root })
  assert.is(active.code, 0, active.stderr)
  assert.is(
    active.stdout,
    `${block('fact-0002', 'API timeout is 60 seconds', 'Gateways cut at 65 s.')}\nstatus: active\nsupersedes: fact-0001\n`,
  )
  assert.is(
    cli(['show', '1'], { cwd: root }).stdout,
    `${block('fact-0001', 'API timeout is 30 seconds', 'Gateways cut at 35 s.')}\nstatus: superseded by fact-0002\n`,
    'a short id',
  )
  const json = JSON.parse(cli(['show', 'fact-0001', '--json'], { cwd: root }).stdout)
  assert.equal([json.fact.id, json.fact.supersededBy, json.state], ['fact-0001', 'fact-0002', 'superseded'])
  const unknown = cli(['show', 'fact-0042'], { cwd: root })
  assert.equal(
    [unknown.code, unknown.stdout, unknown.stderr],
    [1, '', 'error: No fact fact-0042. List ids with `foundry list --status all`.\n'],
  )
  const bad = cli(['show', 'cents'], { cwd: root })
  assert.is(bad.code, 1)
  assert.match(
    bad.stderr,
    /^error: command-argument value 'cents' is invalid for argument 'id'\. Not a fact id: give one such as fact-0012\.\n$/,
  )
})

test('history: the chain both ways, oldest first; --json has each fact and its state', () => {
  const root = project()
  const expected =
    'fact-0001 · \\d{4}-\\d\\d-\\d\\d · superseded by fact-0002 · API timeout is 30 seconds\nfact-0002 · \\d{4}-\\d\\d-\\d\\d · active · API timeout is 60 seconds\n'
  for (const id of ['fact-0001', 'fact-0002'])
    assert.match(cli(['history', id], { cwd: root }).stdout, new RegExp(`^${expected}$`))
  assert.match(
    cli(['history', 'fact-0003'], { cwd: root }).stdout,
    /^fact-0003 · [\d-]+ · active · Money is stored in integer cents\n$/,
  )
  const json = JSON.parse(cli(['history', 'fact-0002', '--json'], { cwd: root }).stdout)
  assert.equal(
    json.chain.map((e: { fact: { id: string }; state: string }) => [e.fact.id, e.state]),
    [
      ['fact-0001', 'superseded'],
      ['fact-0002', 'active'],
    ],
  )
})

test('forget: --reason required; the fact leaves list and search, shows as forgotten; superseded and unknown facts are errors', () => {
  const root = project()
  const missing = cli(['forget', 'fact-0003'], { cwd: root })
  assert.is(missing.code, 1)
  assert.match(missing.stderr, /^error: required option '--reason <text>' not specified/)
  const forgot = cli(['forget', 'fact-0003', '--reason', 'We store decimals now'], { cwd: root })
  assert.is(forgot.code, 0, forgot.stderr)
  assert.match(
    forgot.stdout,
    /^forgotten: fact-0003\nIndex: 1\/1 facts listed, ~\d+ tokens, 0 omitted over budget\.\n$/,
  )
  assert.is(cli(['list'], { cwd: root }).stdout, 'fact-0002 · constraint · medium · API timeout is 60 seconds\n')
  assert.is(
    cli(['list', '--status', 'forgotten'], { cwd: root }).stdout,
    'fact-0003 · convention · medium · Money is stored in integer cents (forgotten: We store decimals now)\n',
  )
  assert.is(
    cli(['search', 'integer cents'], { cwd: root }).stdout,
    'No stored fact matches "integer cents". Memory holds 1 active facts.\n',
  )
  assert.match(
    cli(['show', 'fact-0003'], { cwd: root }).stdout,
    /\nstatus: forgotten on \d{4}-\d\d-\d\d: We store decimals now\n$/,
  )
  assert.match(
    cli(['search', 'fact-0003'], { cwd: root }).stdout,
    /\nstatus: forgotten on \d{4}-\d\d-\d\d: We store decimals now\n$/,
  )
  const superseded = cli(['forget', 'fact-0001', '--reason', 'x'], { cwd: root })
  assert.equal(
    [superseded.code, superseded.stderr],
    [
      1,
      'error: fact-0001 is superseded by fact-0002 and already out of the index and search; forget the active fact of its history instead\n',
    ],
  )
  assert.is(
    cli(['forget', 'fact-0009', '--reason', 'x'], { cwd: root }).stderr,
    'error: No fact fact-0009. List ids with `foundry list --status all`.\n',
  )
  const json = JSON.parse(cli(['list', '--status', 'forgotten', '--json'], { cwd: root }).stdout)
  assert.is(json.facts[0].forgottenReason, 'We store decimals now')
})

test('edit with flags writes a superseding version, so history keeps the old one; an unchanged edit writes nothing', () => {
  const root = project()
  const edited = cli(['edit', 'fact-0003', '--tags', 'money,db', '--confidence', 'high'], { cwd: root })
  assert.is(edited.code, 0, edited.stderr)
  assert.match(edited.stdout, /^created: fact-0004 \(supersedes fact-0003\)\nIndex: /)
  const shown = JSON.parse(cli(['show', 'fact-0004', '--json'], { cwd: root }).stdout).fact
  assert.equal(
    [shown.title, shown.body, shown.tags, shown.confidence, shown.supersedes],
    ['Money is stored in integer cents', 'Never floats.', ['money', 'db'], 'high', 'fact-0003'],
  )
  assert.match(
    cli(['history', 'fact-0004'], { cwd: root }).stdout,
    /^fact-0003 · [\d-]+ · superseded by fact-0004 · Money is stored in integer cents\nfact-0004 · [\d-]+ · active · /,
  )

  const before = facts(root)
  const same = cli(['edit', 'fact-0004', '--tags', 'money,db', '--title', 'Money is stored in integer cents'], {
    cwd: root,
  })
  assert.equal([same.code, same.stdout], [0, 'unchanged: fact-0004 (nothing written)\n'])
  assert.is(facts(root), before, 'nothing written')

  const body = cli(['edit', 'fact-0002', '--body', '-'], { cwd: root, input: 'Gateways cut at 70 s.\n' })
  assert.match(body.stdout, /^created: fact-0005 \(supersedes fact-0002\)\n/)
  assert.match(cli(['show', 'fact-0005'], { cwd: root }).stdout, /\nGateways cut at 70 s\.\n/)

  const old = cli(['edit', 'fact-0002', '--title', 'x'], { cwd: root })
  assert.equal(
    [old.code, old.stderr],
    [1, 'error: fact-0002 is superseded by fact-0005: edit the active version (foundry history fact-0002)\n'],
  )
  const invalid = cli(['edit', 'fact-0005', '--title', 'x'.repeat(81)], { cwd: root })
  assert.equal(
    [invalid.code, invalid.stderr],
    [1, 'error: Invalid memory_write input: title must be at most 80 characters\n'],
  )
})

test('edit with $EDITOR: the fact as front matter and body in a temporary file; what the editor saves is the new version', () => {
  const root = project()
  const env = {
    VISUAL: '',
    EDITOR: editor(
      `(text) => text.replace('API timeout is 60 seconds', 'API timeout is 90 seconds').replace('tags: [api]', 'tags: [api, gateway]').replace('Gateways cut at 65 s.', 'Gateways cut at 95 s.')`,
    ),
  }
  const edited = cli(['edit', 'fact-0002'], { cwd: root, env })
  assert.is(edited.code, 0, edited.stderr)
  assert.match(edited.stdout, /^created: fact-0004 \(supersedes fact-0002\)\n/)
  const fact = JSON.parse(cli(['show', 'fact-0004', '--json'], { cwd: root }).stdout).fact
  assert.equal(
    [fact.title, fact.body, fact.tags, fact.type, fact.supersedes],
    ['API timeout is 90 seconds', 'Gateways cut at 95 s.', ['api', 'gateway'], 'constraint', 'fact-0002'],
  )
  assert.match(
    cli(['history', 'fact-0004'], { cwd: root }).stdout,
    /^fact-0001 .*\nfact-0002 .*superseded by fact-0004.*\nfact-0004 · [\d-]+ · active · API timeout is 90 seconds\n$/,
  )

  // What the editor is given: a comment, the fields, a blank line, the body.
  const seen = join(tempDir(), 'seen.md')
  const copy = editor(`(text) => (writeFileSync(${JSON.stringify(seen)}, text), text)`)
  const unchanged = cli(['edit', 'fact-0003'], { cwd: root, env: { VISUAL: '', EDITOR: copy } })
  assert.equal([unchanged.code, unchanged.stdout], [0, 'unchanged: fact-0003 (nothing written)\n'])
  assert.is(
    readFileSync(seen, 'utf8'),
    '---\n# Editing fact-0003. Save and close to write a new version that supersedes it; leave it as it is to write nothing.\ntitle: Money is stored in integer cents\ntype: convention\nscope: project\ntags: [api]\nconfidence: medium\nsource: conversation\nexpires: \n---\n\nNever floats.\n',
  )
})

test('edit with $EDITOR: a broken file or a failing editor writes nothing and says why; the edited file is kept', () => {
  const root = project()
  const before = facts(root)
  const broken = cli(['edit', 'fact-0003'], {
    cwd: root,
    env: { VISUAL: '', EDITOR: editor(`(text) => text.replace('type: convention', 'kind: convention')`) },
  })
  assert.is(broken.code, 1)
  const kept = /\(your edit is kept in (.+)\)\n$/.exec(broken.stderr)?.[1]
  assert.match(
    broken.stderr,
    /^error: line 4: expected one of title, type, scope, tags, confidence, source, expires as `key: value`, got "kind: convention"; nothing written/,
  )
  assert.ok(kept && existsSync(kept) && readFileSync(kept, 'utf8').includes('kind: convention'), 'the edit is kept')
  rmSync(dirname(kept), { recursive: true })
  const failing = cli(['edit', 'fact-0003'], { cwd: root, env: { VISUAL: '', EDITOR: 'false' } })
  assert.equal([failing.code, failing.stderr], [1, 'error: The editor "false" exited with 1; nothing written\n'])
  const none = cli(['edit', 'fact-0003'], { cwd: root, env: { VISUAL: '', EDITOR: '' } })
  assert.equal(
    [none.code, none.stderr],
    [1, 'error: No editor: set $EDITOR, or pass --title, --body, --type, --tags, --confidence or --scope\n'],
  )
  assert.is(facts(root), before, 'nothing written')
  assert.ok(readdirSync(join(root, '.foundry', 'memory', 'facts')).length === 3)
})

test("tokens: the accounting, then the size of the MCP server's tools/list on a line of its own", () => {
  const root = project()
  const tokens = cli(['tokens'], { cwd: root })
  const size = estimateTokens(JSON.stringify({ tools: listTools() }))
  assert.match(
    tokens.stdout,
    `\n\nEstimates use ~4 characters per token. For billed usage see /cost and /usage.\nMCP tools/list: ~${size} tokens for 11 tools, in every session that loads the server.\n`,
  )
  assert.ok(tokens.stdout.endsWith('in every session that loads the server.\n'))
  const json = JSON.parse(cli(['tokens', '--json'], { cwd: root }).stdout)
  assert.equal(json.toolsList, { tools: 11, tokens: size })
  assert.ok(size < 4000, `tools/list stays small (~${size} tokens)`)
})

test.run()
