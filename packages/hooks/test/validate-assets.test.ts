import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { isFoundryError } from '@foundry/kernel'
import { checkAgent, checkSkill, formatAssetReport, validateAssets } from '../src/validate-assets.js'
import { run, VALIDATE_BIN } from './helpers.js'

const trees: string[] = []
process.on('exit', () => trees.forEach((root) => rmSync(root, { recursive: true, force: true })))

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'foundry-assets-'))
  trees.push(root)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

const agent = (front: string, body = 'You review pull requests for billing code.\n') => `---\n${front}\n---\n${body}`
const lines = (n: number) => Array.from({ length: n }, (_, i) => `Step ${i + 1}.`).join('\n')
const GOOD = agent('name: reviewer\ndescription: Reviews billing changes\nmodel: sonnet\neffort: medium')

test('agents must declare model: and effort:; each violation names the file and the line', () => {
  assert.equal(checkAgent('a.md', GOOD), [])
  assert.equal(checkAgent('a.md', agent('name: x\ndescription: y\nmodel: haiku')), [
    {
      file: 'a.md',
      line: 1,
      message: 'front matter does not declare effort: (low, medium, high or xhigh, per the routing table)',
    },
  ])
  assert.equal(checkAgent('a.md', agent('name: x\nmodel:\neffort: high')), [
    { file: 'a.md', line: 3, message: 'model: must name a model, not be empty' },
  ])
  assert.equal(
    checkAgent('a.md', 'You are a reviewer.\n').map((v) => [v.line, v.message.slice(0, 15)]),
    [[1, 'no front matter']],
  )
  const broken = checkAgent('a.md', agent('name: x\nmodel: [sonnet\neffort: high'))
  assert.is(broken.length, 1)
  assert.match(broken[0]!.message, /^front matter is not valid YAML/)
  assert.ok(broken[0]!.line >= 3)
})

test('a SKILL.md body may have 500 lines, not 501; the violation points at line 501 of the body', () => {
  const front = '---\nname: invoices\ndescription: Build invoices\n---\n'
  assert.equal(checkSkill('s/SKILL.md', `${front}${lines(500)}\n`), [])
  assert.equal(checkSkill('s/SKILL.md', `${front}${lines(501)}\n`), [
    {
      file: 's/SKILL.md',
      line: 505,
      message: 'SKILL.md body is 501 lines; the limit is 500: move depth to references/*.md, scripts/ or templates/',
    },
  ])
  assert.equal(
    checkSkill('s/SKILL.md', lines(501)).map((v) => v.line),
    [501],
    'no front matter: the whole file is the body',
  )
})

test("validateAssets scans .claude/ and a plugin's agents/, skills/ and the extra paths plugin.json declares", async () => {
  const root = tree({
    '.claude/agents/reviewer.md': GOOD,
    '.claude/agents/extractor.md': agent('name: extractor\ndescription: Pulls facts\nmodel: haiku'),
    '.claude/skills/invoices/SKILL.md': `---\nname: invoices\n---\n${lines(20)}\n`,
    '.claude/skills/huge/SKILL.md': `---\nname: huge\n---\n${lines(600)}\n`,
    '.claude/skills/huge/references/detail.md': lines(2000),
    '.claude-plugin/plugin.json': JSON.stringify({
      name: 'larkspur',
      agents: './extra/agents/',
      skills: ['./extra/skills'],
    }),
    'agents/architect.md': agent('name: architect\ndescription: Designs\neffort: high'),
    'extra/agents/auditor.md': agent('name: auditor\ndescription: Audits'),
    'extra/skills/refunds/SKILL.md': lines(10),
    'README.md': '# not an asset',
  })
  const report = await validateAssets({ root })
  assert.is(report.agents, 4)
  assert.is(report.skills, 3)
  assert.equal(
    report.violations.map((v) => `${v.file}:${v.line}: ${v.message.split(' (')[0]!.split(':')[0]}`),
    [
      '.claude/agents/extractor.md:1: front matter does not declare effort',
      '.claude/skills/huge/SKILL.md:504: SKILL.md body is 600 lines; the limit is 500',
      'agents/architect.md:1: front matter does not declare model',
      'extra/agents/auditor.md:1: front matter does not declare model',
      'extra/agents/auditor.md:1: front matter does not declare effort',
    ],
  )
  assert.match(formatAssetReport(report), /\n5 violations in 4 agent definitions and 3 skills\.$/)
})

test('foundry-validate-assets: file:line lines and exit 1 on violations, exit 0 when clean', async () => {
  const bad = tree({ '.claude/agents/a.md': agent('name: a\ndescription: b\nmodel: opus') })
  const failed = await run(VALIDATE_BIN, [bad], undefined)
  assert.is(failed.code, 1)
  assert.match(failed.stdout, /^\.claude\/agents\/a\.md:1: front matter does not declare effort:/)
  const good = tree({ '.claude/agents/a.md': GOOD, 'skills/x/SKILL.md': lines(3) })
  const passed = await run(VALIDATE_BIN, [good], undefined)
  assert.equal([passed.code, passed.stdout], [0, 'Checked 1 agent definition and 1 skill: no violations.\n'])
  const empty = await run(VALIDATE_BIN, [tree({})], undefined)
  assert.equal([empty.code, empty.stdout], [0, 'Checked 0 agent definitions and 0 skills: no violations.\n'])
})

test('effort: must be one of low, medium, high, xhigh; any other value is refused on its line with the list', () => {
  for (const effort of ['low', 'medium', 'high', 'xhigh'])
    assert.equal(checkAgent('a.md', agent(`name: x\nmodel: opus\neffort: ${effort}`)), [], effort)
  const refused = (effort: string) => checkAgent('a.md', agent(`name: x\nmodel: opus\neffort: ${effort}`))
  assert.equal(refused('turbo'), [
    {
      file: 'a.md',
      line: 4,
      message: 'effort: turbo is not a reasoning effort: use low, medium, high or xhigh, per the routing table',
    },
  ])
  assert.equal(
    refused('High').map((v) => v.message),
    ['effort: High is not a reasoning effort: use low, medium, high or xhigh, per the routing table'],
  )
  assert.equal(
    refused('3').map((v) => v.message),
    ['effort: 3 is not a reasoning effort: use low, medium, high or xhigh, per the routing table'],
  )
  assert.equal(
    refused('').map((v) => v.message),
    ['effort: must name a reasoning effort, not be empty'],
  )
  assert.equal(
    checkAgent('a.md', agent('name: x\nmodel: 4\neffort: low')).map((v) => v.message),
    ['model: must name a model, not 4'],
  )
})

test('a folder that does not exist, or a file, is an error naming it, never "no violations"', async () => {
  const missing = join(tree({}), 'no', 'such', 'dir')
  try {
    await validateAssets({ root: missing })
    assert.unreachable('should reject')
  } catch (error) {
    assert.ok(isFoundryError(error, 'NOT_FOUND'), String(error))
    assert.is((error as Error).message, `No folder at ${missing}: pass a project or plugin folder that exists`)
  }
  const file = join(tree({ 'AGENTS.md': '# a file' }), 'AGENTS.md')
  try {
    await validateAssets({ root: file })
    assert.unreachable('should reject')
  } catch (error) {
    assert.ok(isFoundryError(error, 'INVALID_INPUT'), String(error))
    assert.is(
      (error as Error).message,
      `${file} is a file, not a folder: pass the project or plugin folder that holds it`,
    )
  }
})

test('foundry-validate-assets: a missing folder exits 1 with the error on stderr; the other folders are still checked', async () => {
  const missing = join(tree({}), 'no-such-dir')
  const alone = await run(VALIDATE_BIN, [missing], undefined)
  assert.equal(
    [alone.code, alone.stdout, alone.stderr],
    [1, '', `foundry-validate-assets: No folder at ${missing}: pass a project or plugin folder that exists\n`],
  )
  const good = tree({ '.claude/agents/a.md': GOOD })
  const both = await run(VALIDATE_BIN, [missing, good], undefined)
  assert.is(both.code, 1)
  assert.is(both.stdout, `${good}\nChecked 1 agent definition and 0 skills: no violations.\n`)
  assert.match(
    both.stderr,
    /^foundry-validate-assets: No folder at .*no-such-dir: pass a project or plugin folder that exists\n$/,
  )
})

test('foundry-validate-assets: effort: turbo fails with the listed values', async () => {
  const root = tree({ '.claude/agents/fast.md': agent('name: fast\ndescription: d\nmodel: haiku\neffort: turbo') })
  const ran = await run(VALIDATE_BIN, [root], undefined)
  assert.is(ran.code, 1)
  assert.is(
    ran.stdout,
    '.claude/agents/fast.md:5: effort: turbo is not a reasoning effort: use low, medium, high or xhigh, per the routing table\n1 violation in 1 agent definition and 0 skills.\n',
  )
})

test('a plugin.json that is not JSON is itself a violation', async () => {
  const report = await validateAssets({ root: tree({ '.claude-plugin/plugin.json': '{ name: ' }) })
  assert.equal(
    report.violations.map((v) => [v.file, v.line]),
    [['.claude-plugin/plugin.json', 1]],
  )
})

test.run()
