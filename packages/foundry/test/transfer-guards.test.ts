import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { BIN, cleanup, cli, tempDir } from './helpers.js'

/*
 * export and import never succeed silently at nothing, never double what they say they wrote, and
 * read only what the tools themselves would accept. Through the real bin.
 */

const test = suite('foundry export and import: no silent no-ops, no doubled data, the tools’ limits')
test.after(cleanup)

/** A project with two facts and one blackboard artifact. */
function project(): string {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  for (const title of ['Money is stored in integer cents', 'Dates are stored in UTC'])
    assert.is(cli(['write', '--type', 'convention', '--title', title, '--body', `${title}.`], { cwd: root }).code, 0)
  const artifact = cli(['blackboard', 'write', 'w1', 'scout', 'handoff.v1', '-'], {
    cwd: root,
    input: JSON.stringify({ summary: 'done', next: ['review'] }),
  })
  assert.is(artifact.code, 0, artifact.stdout + artifact.stderr)
  return root
}

const eventLines = (dir: string) =>
  readFileSync(join(dir, '.foundry', 'metrics', 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean).length

test('import of a path that does not exist, or of a folder holding no export, fails naming the path (exit 1) and imports nothing', () => {
  const root = project()
  const before = cli(['list', '--status', 'all'], { cwd: root }).stdout
  const missing = join(tempDir(), 'nowhere')
  const none = cli(['import', missing], { cwd: root })
  assert.is(none.code, 1, none.stdout)
  assert.match(none.stderr, new RegExp(`${missing}.*does not exist`))
  assert.not.match(none.stdout, /Imported/)

  const empty = tempDir()
  const bare = cli(['import', empty], { cwd: root })
  assert.is(bare.code, 1, bare.stdout)
  assert.match(bare.stderr, /no \.foundry\/ folder/)
  assert.match(bare.stderr, new RegExp(empty))
  assert.is(cli(['list', '--status', 'all'], { cwd: root }).stdout, before)
})

test('export into a folder that already holds an export is refused; --force replaces it; the counts printed are what is on disk', () => {
  const root = project()
  const target = tempDir()
  const first = cli(['export', target], { cwd: root })
  assert.is(first.code, 0, first.stderr)
  const events = eventLines(target)
  assert.match(first.stdout, new RegExp(`${events} events`))

  const again = cli(['export', target], { cwd: root })
  assert.is(again.code, 1, again.stdout)
  assert.match(again.stderr, /already holds/)
  assert.match(again.stderr, /--force/)
  assert.is(eventLines(target), events, 'a refused export writes nothing')

  const forced = cli(['export', target, '--force'], { cwd: root })
  assert.is(forced.code, 0, forced.stderr)
  const now = eventLines(target)
  assert.match(forced.stdout, new RegExp(`${now} events`))
  assert.ok(now < 2 * events, `events doubled: ${events} → ${now}`)
})

test('import reads what the tools accept: a FIFO in the export hangs nothing, an artifact over 1 MiB is left out and named', () => {
  const source = project()
  const exported = tempDir()
  assert.is(cli(['export', exported], { cwd: source }).code, 0)
  const data = join(exported, '.foundry')
  assert.is(spawnSync('mkfifo', [join(data, 'memory', 'facts', 'fact-0007.md')]).status, 0)
  mkdirSync(join(data, 'blackboard', 'w2'), { recursive: true })
  const big = { schema: 'handoff.v1', producedBy: 'bulk', summary: 'x'.repeat(2 * 1024 * 1024), next: [] }
  writeFileSync(join(data, 'blackboard', 'w2', 'bulk.json'), JSON.stringify(big))

  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  const run = spawnSync(process.execPath, [BIN, 'import', exported], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    input: '',
  })
  assert.is(run.signal, null, 'import hung')
  assert.is(run.status, 0, run.stderr)
  assert.match(run.stdout, /Imported 2 facts/)
  assert.match(run.stderr, /fact-0007.*not a regular file/)
  assert.match(run.stderr, /w2\/bulk.*1 MiB/)
  assert.not.ok(existsSync(join(root, '.foundry', 'blackboard', 'w2', 'bulk.json')))
  assert.ok(existsSync(join(root, '.foundry', 'blackboard', 'w1', 'scout.json')))
})

test.run()
