import { WRITE_BATCH_MAX } from '@foundry/kernel'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { call, cleanup, cli, connect, flyway, tempDir, type Connection } from './helpers.js'

const timeout = (seconds: number) => ({
  title: `API timeout is ${seconds} seconds`,
  body: `The gateway cuts at ${seconds + 5} s.`,
  type: 'constraint',
})

for (const storage of ['fs', 'sqlite'] as const) {
  const test = suite<{ root: string; conn: Connection }>(
    `memory_write with facts, through foundry mcp (${storage} storage)`,
  )
  test.before(async (ctx) => {
    ctx.root = tempDir()
    const init = cli(['init', '--storage', storage], { cwd: ctx.root })
    assert.is(init.code, 0, init.stderr)
    ctx.conn = await connect(ctx.root)
  })
  test.after(async (ctx) => {
    await ctx.conn.close()
    cleanup()
  })

  test('a batch stores its facts in order: one line a fact in the single write wording, then the index line', async ({
    conn,
    root,
  }) => {
    const result = await call(conn.client, 'memory_write', { facts: [flyway, timeout(30), flyway, timeout(60)] })
    assert.not.ok(result.isError, result.text)
    const lines = result.text.split('\n')
    assert.equal(lines.slice(0, 4), [
      'created: fact-0001',
      'created: fact-0002',
      'exists: fact-0001 (identical fact, nothing written)',
      'created: fact-0003 (supersedes fact-0002)',
    ])
    assert.match(lines[4]!, /^Index: 2\/2 facts listed, ~\d+ tokens, 0 omitted over budget\.$/)
    assert.is(lines.length, 5)
    assert.equal(
      result.structured?.facts.map((f: { action: string; id: string; supersedes?: string }) => [
        f.action,
        f.id,
        f.supersedes,
      ]),
      [
        ['created', 'fact-0001', undefined],
        ['created', 'fact-0002', undefined],
        ['duplicate', 'fact-0001', undefined],
        ['created', 'fact-0003', 'fact-0002'],
      ],
    )
    assert.equal(result.structured?.index.total, 2)
    const found = await call(conn.client, 'memory_search', { query: 'gateway timeout' })
    assert.match(found.text, /### fact-0003 · constraint/)
    assert.not.match(found.text, /fact-0002/)
    const listed = cli(['list', '--status', 'all', '--json'], { cwd: root })
    assert.is(listed.code, 0, listed.stderr)
    const { facts } = JSON.parse(listed.stdout) as {
      facts: Array<{ id: string; status: string; supersededBy?: string }>
    }
    assert.equal(
      facts.map((f) => [f.id, f.status, f.supersededBy]),
      [
        ['fact-0001', 'active', undefined],
        ['fact-0002', 'superseded', 'fact-0003'],
        ['fact-0003', 'active', undefined],
      ],
    )
  })

  test('the single form answers as before beside a batch', async ({ conn }) => {
    const one = await call(conn.client, 'memory_write', {
      title: 'Money is stored in integer cents',
      body: 'Never floats.',
      type: 'convention',
    })
    assert.match(one.text, /^created: fact-0004\nIndex: 3\/3 facts listed, ~\d+ tokens, 0 omitted over budget\.$/)
    assert.equal(
      [one.structured?.action, one.structured?.id, one.structured?.facts],
      ['created', 'fact-0004', undefined],
    )
  })

  test('a batch with one refused fact writes nothing and names its position and field; facts beside one fact, or too many, are refused', async ({
    conn,
    root,
  }) => {
    const before = cli(['list', '--status', 'all', '--json'], { cwd: root }).stdout
    const bad = await call(conn.client, 'memory_write', {
      facts: [timeout(90), { title: 'We use Flyway', body: 'For migrations.', type: 'decision' }],
    })
    assert.ok(bad.isError)
    assert.match(
      bad.text,
      /^memory_write failed: facts\[1\]: body of a decision must include "Why:" and "How to apply:"/,
    )
    const shape = await call(conn.client, 'memory_write', {
      facts: [timeout(90), { title: 'No body here', type: 'domain' }],
    })
    assert.match(
      shape.text,
      /^memory_write failed: Invalid memory_write input: facts\[1\]: missing required property "body"$/,
    )
    const both = await call(conn.client, 'memory_write', { title: 'Also this', facts: [timeout(90)] })
    assert.is(
      both.text,
      "memory_write failed: Invalid arguments: give facts or one fact's fields, not both (title beside facts); move them into the facts",
    )
    const many = await call(conn.client, 'memory_write', {
      facts: Array.from({ length: WRITE_BATCH_MAX + 1 }, (_, i) => timeout(i)),
    })
    assert.ok(many.isError, many.text)
    assert.is(
      many.text,
      `memory_write failed: Invalid arguments: facts must not have more than ${WRITE_BATCH_MAX} items`,
    )
    assert.is(cli(['list', '--status', 'all', '--json'], { cwd: root }).stdout, before, 'nothing was written')
  })

  test.run()
}
