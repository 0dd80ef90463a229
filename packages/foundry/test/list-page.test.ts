import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanup, cli, tempDir } from './helpers.js'

/** A fs project holding `n` active facts (fact-0001…), their files written as `foundry write` writes them. */
function project(n: number): string {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  const facts = join(root, '.foundry', 'memory', 'facts')
  mkdirSync(facts, { recursive: true })
  for (let i = 1; i <= n; i++) {
    const id = `fact-${String(i).padStart(4, '0')}`
    const created = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString()
    writeFileSync(
      join(facts, `${id}.md`),
      `---\nid: ${id}\ntitle: "Service ${i} listens on port ${8000 + i}"\ntype: convention\nscope: project\ntags: [ops]\nconfidence: medium\nsource: code\ncreated: ${created}\nstatus: active\n---\n\nAgreed in review.\n`,
    )
  }
  return root
}

const test = suite('foundry list pages')
test.after(cleanup)

test('past 100 facts the text shows the first 100 by id and how many more; --all, --limit and --json show what they ask', () => {
  const root = project(130)
  const page = cli(['list'], { cwd: root })
  assert.is(page.code, 0, page.stderr)
  const lines = page.stdout.trimEnd().split('\n')
  assert.is(lines.length, 101)
  assert.is(lines[0], 'fact-0001 · convention · medium · Service 1 listens on port 8001')
  assert.is(lines[99], 'fact-0100 · convention · medium · Service 100 listens on port 8100')
  assert.is(lines[100], '30 more: foundry list --all (or --limit <n>)')
  assert.is(cli(['list', '--all'], { cwd: root }).stdout.trimEnd().split('\n').length, 130)
  assert.equal(cli(['list', '--limit', '2'], { cwd: root }).stdout.trimEnd().split('\n').slice(2), [
    '128 more: foundry list --all (or --limit <n>)',
  ])
  assert.is(JSON.parse(cli(['list', '--json'], { cwd: root }).stdout).facts.length, 130, '--json lists every fact')
  const limited = JSON.parse(cli(['list', '--json', '--limit', '3'], { cwd: root }).stdout)
  assert.equal([limited.facts.length, limited.total], [3, 130])
  assert.is(
    cli(['list', '--type', 'convention', '--limit', '1'], { cwd: root }).stdout.trimEnd().split('\n')[1],
    '129 more: foundry list --all (or --limit <n>)',
  )
})

test('a small project lists as before, with no last line; a bad --limit is one line naming it', () => {
  const root = project(3)
  assert.is(
    cli(['list'], { cwd: root }).stdout,
    ['fact-0001', 'fact-0002', 'fact-0003']
      .map((id, i) => `${id} · convention · medium · Service ${i + 1} listens on port ${8001 + i}`)
      .join('\n') + '\n',
  )
  for (const args of [
    ['--limit', '0'],
    ['--limit', '2', '--all'],
  ]) {
    const bad = cli(['list', ...args], { cwd: root })
    assert.is(bad.code, 1)
    assert.match(bad.stderr, /^error: --limit .+\n$/)
  }
})

test.run()
