import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { call, cleanup, cli, connect, finding, flyway, tempDir } from './helpers.js'

test.after(cleanup)

test('token_report (text and structuredContent) and foundry tokens give one eager figure, blackboard included', async () => {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  const wrote = cli(['write', '--title', flyway.title, '--body', flyway.body, '--type', 'decision'], { cwd: root })
  assert.is(wrote.code, 0, wrote.stderr)
  writeFileSync(join(root, 'finding.json'), JSON.stringify({ ...finding, notes: 'x'.repeat(4000) }))
  assert.is(
    cli(['blackboard', 'write', 'audit', 'appsec-reviewer', 'finding.v1', 'finding.json'], { cwd: root }).code,
    0,
  )

  const accounting = cli(['tokens'], { cwd: root }).stdout
  const figures = JSON.parse(cli(['tokens', '--json'], { cwd: root }).stdout)
  const conn = await connect(root)
  try {
    const report = await call(conn.client, 'token_report')
    const eager = Number(/eagerly would cost ~(\d+) tokens/.exec(report.text)?.[1])
    assert.ok(report.structured!.artifactTokens > 1000, 'the artifact weighs enough to tell the definitions apart')
    assert.is(
      report.structured!.eagerTokens,
      report.structured!.factTokens + report.structured!.runbookTokens + report.structured!.artifactTokens,
    )
    assert.is(eager, report.structured!.eagerTokens, 'the tool text says what its structuredContent says')
    assert.is(
      Number(/eager loading would cost +~(\d+) tokens/.exec(accounting)?.[1]),
      eager,
      'foundry tokens says the same',
    )
    assert.is(figures.eagerTokens, eager, 'foundry tokens --json')
  } finally {
    await conn.close()
  }
})

test.run()
