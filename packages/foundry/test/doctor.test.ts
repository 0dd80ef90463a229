import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanup, cli, tempDir } from './helpers.js'

const test = suite('cli: foundry doctor')
test.after(cleanup)

/** A pid that was a process a moment ago and is gone now. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid

/** A project with three facts, as `foundry init` and `foundry write` leave it. */
function project(storage?: string): string {
  const root = tempDir()
  assert.is(cli(['init', ...(storage ? ['--storage', storage] : [])], { cwd: root }).code, 0)
  for (const title of ['API timeout is 30 seconds', 'Money is stored in integer cents', 'Deploys go out on Tuesdays']) {
    const write = cli(['write', '--title', title, '--body', `${title}.`, '--type', 'convention'], { cwd: root })
    assert.is(write.code, 0, write.stderr)
  }
  return root
}

const ids = (root: string) => {
  const out = cli(['list', '--status', 'all', '--json'], { cwd: root })
  assert.is(out.code, 0, out.stderr)
  return (JSON.parse(out.stdout) as { facts: Array<{ id: string }> }).facts.map((f) => f.id).sort()
}

test('a healthy project: exit 0, nothing to fix', () => {
  const root = project()
  assert.is(cli(['search', 'timeout'], { cwd: root }).code, 0) // leaves a retriever snapshot, every part of it in place
  assert.ok(
    existsSync(join(root, '.foundry', 'cache', 'meta', 'retriever', 'bm25', 'head')),
    'a search leaves a snapshot',
  )
  const out = cli(['doctor'], { cwd: root })
  assert.is(out.code, 0, out.stdout + out.stderr)
  assert.match(out.stdout, /^healthy: /m)
  const empty = tempDir()
  assert.is(cli(['init'], { cwd: empty }).code, 0)
  assert.is(cli(['doctor'], { cwd: empty }).code, 0, 'a project with no facts yet is healthy')
})

test('doctor lists each problem (exit 1); --fix repairs them, quarantines the broken fact, loses no other; then exit 0', () => {
  const root = project()
  const data = join(root, '.foundry')
  const before = ids(root)
  assert.equal(before, ['fact-0001', 'fact-0002', 'fact-0003'])
  assert.is(cli(['search', 'timeout'], { cwd: root }).code, 0) // leaves a retriever snapshot
  const dead = deadPid()

  // A stale lock: its owner file names a process that is gone.
  mkdirSync(join(data, 'cache', 'write.lock'), { recursive: true })
  writeFileSync(
    join(data, 'cache', 'write.lock', 'owner'),
    JSON.stringify({ host: hostname(), pid: dead, start: '', token: 'x' }),
  )
  // Temporary files of killed writers.
  writeFileSync(join(data, 'memory', 'facts', `.fact-0004.md.${dead}-1ab.tmp`), 'half a fact')
  writeFileSync(join(data, 'memory', `.INDEX.md.${dead}.tmp`), 'half an index')
  mkdirSync(join(data, 'runbooks'), { recursive: true })
  writeFileSync(join(data, 'runbooks', `.deploy.md.${dead}-2cd.tmp`), 'half a runbook')
  // A corrupted record cache, an out-of-date INDEX.md and a broken fact file.
  writeFileSync(join(data, 'cache', 'facts.records.json'), '{"format":"foundry-records/1","entries":{"fact-0001":')
  writeFileSync(join(data, 'memory', 'INDEX.md'), '# Project memory\n\nnothing here\n')
  writeFileSync(join(data, 'memory', 'facts', 'fact-0004.md'), '---\nid: [unclosed\n---\nnot a fact\n')
  // A retriever snapshot whose head cannot be read.
  const head = join(data, 'cache', 'meta', 'retriever', 'bm25', 'head')
  assert.ok(existsSync(head), 'a search leaves a snapshot')
  writeFileSync(head, '{"format":')

  const check = cli(['doctor'], { cwd: root })
  assert.is(check.code, 1, check.stdout + check.stderr)
  const lines = check.stdout.trim().split('\n')
  assert.ok(
    lines.some((l) => /^problem: lock: stale write lock/.test(l)),
    check.stdout,
  )
  assert.is(lines.filter((l) => l.startsWith('problem: temp: ')).length, 3, check.stdout)
  assert.ok(
    lines.some((l) => /^problem: cache: record cache .*facts\.records\.json/.test(l)),
    check.stdout,
  )
  assert.ok(
    lines.some((l) => /^problem: fact: unreadable fact fact-0004/.test(l)),
    check.stdout,
  )
  assert.ok(
    lines.some((l) => /^problem: index: INDEX\.md is out of date/.test(l)),
    check.stdout,
  )
  assert.ok(
    lines.some((l) => l.startsWith('problem: snapshot: ')),
    check.stdout,
  )
  assert.match(lines.at(-1)!, /to fix \(run foundry doctor --fix\)/)
  // Reporting changed nothing.
  assert.ok(existsSync(join(data, 'cache', 'write.lock', 'owner')))
  assert.ok(existsSync(join(data, 'memory', `.INDEX.md.${dead}.tmp`)))
  assert.ok(existsSync(join(data, 'memory', 'facts', 'fact-0004.md')))

  const fix = cli(['doctor', '--fix'], { cwd: root })
  assert.is(fix.code, 0, fix.stdout + fix.stderr)
  const fixed = fix.stdout.trim().split('\n')
  for (const check of ['lock', 'temp', 'cache', 'snapshot', 'fact', 'index'])
    assert.ok(
      fixed.some((l) => l.startsWith(`fixed: ${check}: `)),
      `${check}: ${fix.stdout}`,
    )
  assert.not.ok(
    fixed.some((l) => /^(problem|unfixable):/.test(l)),
    fix.stdout,
  )
  assert.not.ok(existsSync(join(data, 'cache', 'write.lock')))
  assert.not.ok(existsSync(join(data, 'memory', `.INDEX.md.${dead}.tmp`)))
  assert.not.ok(existsSync(join(data, 'memory', 'facts', `.fact-0004.md.${dead}-1ab.tmp`)))
  assert.not.ok(existsSync(join(data, 'runbooks', `.deploy.md.${dead}-2cd.tmp`)))
  // Quarantined with its reason, never deleted.
  const quarantined = join(data, 'quarantine', 'fact-0004.md')
  assert.is(readFileSync(quarantined, 'utf8'), '---\nid: [unclosed\n---\nnot a fact\n')
  assert.match(readFileSync(`${quarantined}.reason.txt`, 'utf8'), /cannot be read as a fact: /)
  assert.ok(
    fixed.some((l) => l.includes(quarantined)),
    'the fix names where the fact went',
  )
  assert.not.ok(existsSync(join(data, 'memory', 'facts', 'fact-0004.md')))
  // No other fact lost; the index lists them again.
  assert.equal(ids(root), before)
  assert.match(readFileSync(join(data, 'memory', 'INDEX.md'), 'utf8'), /Money is stored in integer cents/)

  const again = cli(['doctor'], { cwd: root })
  assert.is(again.code, 0, again.stdout + again.stderr)
  assert.match(again.stdout, /^healthy: /m)
  assert.is(readdirSync(join(data, 'quarantine')).length, 2)
})

test('a live lock holder is reported and left alone; --json gives the findings', () => {
  const root = project()
  const lock = join(root, '.foundry', 'cache', 'write.lock')
  mkdirSync(lock, { recursive: true })
  writeFileSync(join(lock, 'owner'), JSON.stringify({ host: hostname(), pid: process.pid, start: '', token: 'x' }))
  const out = cli(['doctor', '--fix', '--json'], { cwd: root })
  assert.is(out.code, 0, out.stdout + out.stderr)
  const report = JSON.parse(out.stdout) as {
    healthy: boolean
    findings: Array<{ status: string; check: string; message: string }>
  }
  assert.ok(report.healthy)
  assert.ok(
    report.findings.some((f) => f.status === 'note' && f.check === 'lock' && /running: left alone/.test(f.message)),
    out.stdout,
  )
  assert.ok(existsSync(join(lock, 'owner')))
})

test('sqlite: PRAGMA integrity_check is reported', () => {
  const root = project('sqlite')
  const out = cli(['doctor'], { cwd: root })
  assert.is(out.code, 0, out.stdout + out.stderr)
  assert.match(out.stdout, /^note: integrity: PRAGMA integrity_check: ok/m)
  assert.match(out.stdout, /^healthy: .*\(storage sqlite\)/m)
})

test.run()
