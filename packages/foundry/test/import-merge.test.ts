import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { BIN, cleanup, cli, tempDir } from './helpers.js'

/** Every path below `dir`, relative, folders with a trailing slash. */
function walk(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? [`${prefix}${e.name}/`, ...walk(join(dir, e.name), `${prefix}${e.name}/`)]
      : [`${prefix}${e.name}`],
  )
}

/** A project initialised with `storage` holding these facts (convention facts, written in order). */
function project(storage: 'fs' | 'sqlite', titles: string[]): string {
  const root = tempDir()
  assert.is(cli(['init', '--storage', storage], { cwd: root }).code, 0)
  for (const title of titles) {
    const write = cli(['write', '--type', 'convention', '--title', title, '--body', `${title}: agreed in review.`], {
      cwd: root,
    })
    assert.is(write.code, 0, write.stderr)
  }
  return root
}

/** `foundry list --status all` as id → "title (status)". */
function facts(root: string): Record<string, string> {
  const json = JSON.parse(cli(['list', '--status', 'all', '--json'], { cwd: root }).stdout)
  const listed = (Array.isArray(json) ? json : json.facts) as Array<{
    id: string
    title: string
    status: string
    supersedes?: string
    supersededBy?: string
  }>
  return Object.fromEntries(
    listed.map((f) => [
      f.id,
      `${f.title} (${f.status}${f.supersedes ? ` supersedes ${f.supersedes}` : ''}${f.supersededBy ? ` by ${f.supersededBy}` : ''})`,
    ]),
  )
}

// The source: fact-0002 superseded by fact-0003 (the same statement, a new value).
const SOURCE = ['Handlers are idempotent', 'API timeout is 30 seconds', 'API timeout is 60 seconds']

const merge = suite<{ exported: string }>('foundry import merges')
merge.before((ctx) => {
  const source = project('fs', SOURCE)
  assert.is(
    cli(['runbook', 'add', 'deploy', '--title', 'Deploy', '--body', '1. Tag.\n2. Push.'], { cwd: source }).code,
    0,
  )
  ctx.exported = tempDir()
  const exported = cli(['export', ctx.exported], { cwd: source })
  assert.is(exported.code, 0, exported.stderr)
})
merge.after(cleanup)

for (const storage of ['fs', 'sqlite'] as const) {
  merge(
    `${storage}: nothing lost, identical facts skipped, taken ids renumbered with supersedes rewritten, the mapping printed`,
    ({ exported }) => {
      const root = project(storage, ['Queue is Kafka', 'Handlers are idempotent'])
      assert.is(
        cli(['runbook', 'add', 'deploy', '--title', 'Deploy', '--body', '1. Ask first.'], { cwd: root }).code,
        0,
      )
      const imported = cli(['import', exported], { cwd: root })
      assert.is(imported.code, 0, imported.stderr)
      assert.is(imported.stderr, '', 'no progress line: stderr is not a terminal')
      const lines = imported.stdout.split('\n')
      assert.match(lines[0]!, /^Imported 2 facts, 0 runbooks, 0 contracts, 0 artifacts, \d+ events from /)
      assert.equal(lines.slice(1, 5), [
        "Skipped 1 fact identical to the project's",
        "fact-0001 → fact-0002 (identical to the project's, not stored again)",
        'fact-0002 → fact-0004',
        "conflict: runbook deploy differs from the project's; kept the project's (--replace takes the imported one)",
      ])
      assert.match(lines[5]!, /^Rebuilt /)
      assert.equal(facts(root), {
        'fact-0001': 'Queue is Kafka (active)',
        'fact-0002': 'Handlers are idempotent (active)',
        'fact-0003': 'API timeout is 60 seconds (active supersedes fact-0004)',
        'fact-0004': 'API timeout is 30 seconds (superseded by fact-0003)',
      })
      assert.match(
        cli(['runbooks', 'deploy'], { cwd: root }).stdout,
        /1\. Ask first\./,
        "the conflicting runbook is the project's",
      )
      assert.match(cli(['search', 'API timeout'], { cwd: root }).stdout, /60 seconds/)

      const again = JSON.parse(cli(['import', exported, '--json'], { cwd: root }).stdout)
      assert.equal(again.ids, { 'fact-0001': 'fact-0002', 'fact-0002': 'fact-0004' }, '--json: the mapping object')
      assert.equal(again.added, {}, 'a second import adds nothing')
      assert.is(again.facts, 0)
      assert.is(again.events, 0, 'events already imported are not appended again')
      assert.equal(again.conflicts, [{ collection: 'runbooks', key: 'deploy' }])
      assert.is(Object.keys(facts(root)).length, 4)
    },
  )
}

merge('--replace overwrites by id and key, as import did before', ({ exported }) => {
  const root = project('sqlite', ['Queue is Kafka'])
  assert.is(cli(['runbook', 'add', 'deploy', '--title', 'Deploy', '--body', '1. Ask first.'], { cwd: root }).code, 0)
  const replaced = cli(['import', exported, '--replace'], { cwd: root })
  assert.is(replaced.code, 0, replaced.stderr)
  assert.match(replaced.stdout, /^Imported 3 facts, 1 runbooks, 0 contracts, 0 artifacts, \d+ events from .*\nRebuilt /)
  assert.equal(facts(root), {
    'fact-0001': 'Handlers are idempotent (active)',
    'fact-0002': 'API timeout is 30 seconds (superseded by fact-0003)',
    'fact-0003': 'API timeout is 60 seconds (active supersedes fact-0002)',
  })
  assert.match(cli(['runbooks', 'deploy'], { cwd: root }).stdout, /2\. Push\./)
})

merge('export writes content only: no cache/ in the export, none left in the folder imported from', ({ exported }) => {
  assert.equal(walk(join(exported, '.foundry')).sort(), [
    '.gitignore',
    'memory/',
    'memory/INDEX.md',
    'memory/facts/',
    'memory/facts/fact-0001.md',
    'memory/facts/fact-0002.md',
    'memory/facts/fact-0003.md',
    'metrics/',
    'metrics/events.jsonl',
    'runbooks/',
    'runbooks/deploy.md',
  ])
  const root = project('fs', [])
  assert.is(cli(['import', exported], { cwd: root }).code, 0)
  assert.not.ok(existsSync(join(exported, '.foundry', 'cache')), 'reading the folder caches nothing there')
  assert.ok(existsSync(join(root, '.foundry', 'cache')), "the project's own cache is where it always is")
  const again = tempDir()
  const sqlite = project('sqlite', ['Queue is Kafka'])
  assert.is(cli(['export', again], { cwd: sqlite }).code, 0)
  assert.not.ok(existsSync(join(again, '.foundry', 'cache')), 'nor from an SQLite project')
  assert.match(
    readFileSync(join(again, '.foundry', 'memory', 'facts', 'fact-0001.md'), 'utf8'),
    /title: Queue is Kafka/,
  )
})

merge('a progress line is drawn on stderr only when it is a terminal', ({ exported }) => {
  const root = project('fs', [])
  const quiet = cli(['import', exported], { cwd: root })
  assert.is(quiet.stderr, '')
  const out = tempDir()
  assert.is(cli(['export', out], { cwd: root }).stderr, '')
  // `script` runs the command on a pseudo-terminal (util-linux); where it is missing the quiet case above still holds.
  const probe = spawnSync('script', ['--version'], { encoding: 'utf8' })
  if (probe.status !== 0) return
  const onTerminal = spawnSync(
    'script',
    ['-qec', `"${process.execPath}" "${BIN}" export "${tempDir()}"`, '/dev/null'],
    { cwd: root, encoding: 'utf8' },
  )
  assert.is(onTerminal.status, 0, onTerminal.stderr)
  assert.match(onTerminal.stdout, /\rexport: \d+\/\d+ \w+/, 'a counter redrawn in place')
  assert.match(onTerminal.stdout, /\r\u001b\[KExported 3 facts/, 'cleared before the result')
})

merge.run()
