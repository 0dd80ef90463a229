import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { call, cleanup, cli, connect, finding, tempDir } from './helpers.js'

test.after(cleanup)

/** A project of the given storage, initialised by the CLI, with round `n` of the finding in `finding-<n>.json`. */
function project(storage: 'fs' | 'sqlite'): string {
  const root = tempDir()
  const init = cli(['init', '--storage', storage], { cwd: root })
  assert.is(init.code, 0, init.stderr)
  for (const n of [1, 2, 3])
    writeFileSync(
      join(root, `finding-${n}.json`),
      JSON.stringify({ ...finding, summary: `Round ${n}: ${finding.summary}` }),
    )
  return root
}

for (const storage of ['fs', 'sqlite'] as const) {
  test(`foundry blackboard write over an existing artifact says "Replaced" and --at reads the earlier one back (${storage})`, () => {
    const root = project(storage)
    const write = (n: number) =>
      cli(['blackboard', 'write', 'audit', 'appsec-reviewer', 'finding.v1', `finding-${n}.json`], { cwd: root })
    const first = write(1)
    assert.is(first.code, 0, first.stderr)
    assert.match(
      first.stdout,
      /^Wrote \S+ \(\d+ bytes, ~\d+ tokens\)\.\nReturn to your caller ONLY this path and a summary of at most 300 tokens\.\n$/,
    )

    const second = write(2)
    assert.is(second.code, 0, second.stderr)
    const lines = second.stdout.trimEnd().split('\n')
    assert.match(lines[0]!, /^Replaced \S+ \(\d+ bytes, ~\d+ tokens\)\.$/)
    assert.is(lines[1], 'Return to your caller ONLY this path and a summary of at most 300 tokens.')
    assert.is(
      lines[2],
      'This is version 2; version 1, the one it replaced, stays readable: blackboard_read with agent "appsec-reviewer" and version 1.',
    )
    if (storage === 'fs') {
      assert.ok(second.stdout.startsWith('Replaced .foundry/blackboard/audit/appsec-reviewer.json '))
      const kept = JSON.parse(
        readFileSync(
          join(root, '.foundry', 'data', 'blackboard.history', 'audit', 'appsec-reviewer', '1.json'),
          'utf8',
        ),
      )
      assert.is(kept.data.summary, `Round 1: ${finding.summary}`)
    }

    const again = write(2)
    assert.match(again.stdout, /^Unchanged \S+ \(\d+ bytes, ~\d+ tokens\)\./)
    const json = JSON.parse(
      cli(['blackboard', 'write', 'audit', 'appsec-reviewer', 'finding.v1', 'finding-3.json', '--json'], { cwd: root })
        .stdout,
    )
    assert.equal([json.written, json.version, json.replaced], [true, 3, true])

    const wave = cli(['blackboard', 'read', 'audit'], { cwd: root })
    assert.match(
      wave.stdout,
      /^- \*\*appsec-reviewer\.json\*\* · schema finding\.v1 · by appsec-reviewer · ~\d+ tokens\n {2}Round 3: .*\n {2}version 3: it replaced versions 1 to 2, still readable \(pass agent and version\)\n$/,
    )
    const one = cli(['blackboard', 'read', 'audit', '--agent', 'appsec-reviewer', '--at', '1'], { cwd: root })
    assert.is(one.code, 0, one.stderr)
    assert.match(
      one.stdout,
      /^- \*\*appsec-reviewer\.json\*\* · version 1 of 3 · schema finding\.v1 · by appsec-reviewer · ~\d+ tokens\n {2}Round 1: Six findings/,
    )
    const full = cli(['blackboard', 'read', 'audit', '--agent', 'appsec-reviewer', '--at', '2', '--full'], {
      cwd: root,
    })
    assert.match(full.stdout, /^### appsec-reviewer\.json \(version 2 of 3\)\n```json\n/)
    assert.is(JSON.parse(full.stdout.split('```json\n')[1]!.split('\n```')[0]!).summary, `Round 2: ${finding.summary}`)
  })
}

test('foundry blackboard read --at: a version that does not exist, --at without --agent, or not a number, exits 1 with one line', () => {
  const root = project('fs')
  cli(['blackboard', 'write', 'audit', 'appsec-reviewer', 'finding.v1', 'finding-1.json'], { cwd: root })
  const missing = cli(['blackboard', 'read', 'audit', '--agent', 'appsec-reviewer', '--at', '2'], { cwd: root })
  assert.equal(
    [missing.code, missing.stdout, missing.stderr],
    [1, '', 'error: version 2 of audit/appsec-reviewer does not exist: it has version 1\n'],
  )
  const noAgent = cli(['blackboard', 'read', 'audit', '--at', '1'], { cwd: root })
  assert.equal(
    [noAgent.code, noAgent.stderr],
    [1, 'error: --at needs --agent: versions are kept per agent; name the agent whose earlier artifact you want\n'],
  )
  const word = cli(['blackboard', 'read', 'audit', '--agent', 'appsec-reviewer', '--at', 'first'], { cwd: root })
  assert.is(word.code, 1)
  assert.match(word.stderr, /--at <version>.*Not an integer/)
  assert.ok(existsSync(join(root, '.foundry', 'blackboard', 'audit', 'appsec-reviewer.json')))
})

test('over MCP: blackboard_write declares version and replaced, blackboard_read takes version', async () => {
  const root = project('fs')
  const conn = await connect(root)
  try {
    const write = (n: number) =>
      call(conn.client, 'blackboard_write', {
        wave: 'audit',
        agent: 'appsec-reviewer',
        schema: 'finding.v1',
        data: { ...finding, summary: `Round ${n}` },
      })
    assert.equal([(await write(1)).structured?.version, (await write(1)).structured?.replaced], [1, false])
    const replaced = await write(2)
    assert.not.ok(replaced.isError)
    assert.match(replaced.text, /^Replaced \.foundry\/blackboard\/audit\/appsec-reviewer\.json /)
    assert.equal([replaced.structured?.version, replaced.structured?.replaced], [2, true])
    const read = await call(conn.client, 'blackboard_read', { wave: 'audit', agent: 'appsec-reviewer', version: 1 })
    assert.not.ok(read.isError, read.text)
    assert.equal([read.structured?.artifacts[0].version, read.structured?.artifacts[0].summary], [1, 'Round 1'])
    const current = await call(conn.client, 'blackboard_read', { wave: 'audit' })
    assert.is(current.structured?.artifacts[0].version, 2)
    const tool = (await conn.client.listTools()).tools.find((t) => t.name === 'blackboard_read')
    assert.is((tool?.inputSchema.properties as Record<string, { type?: string }>).version?.type, 'integer')
  } finally {
    await conn.close()
  }
})

test.run()
