import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { call, cleanup, cli, connect, tempDir, type Connection } from './helpers.js'

const cents = { title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' }
const invoices = {
  title: 'Invoices are numbered per year',
  body: 'INV-2026-0001, amounts in integer cents.',
  type: 'convention',
}
/** The facts a memory_search text prints whole, in order (memory_search sends its text alone). */
const blockIds = (text: string) => [...text.matchAll(/^### (fact-\d+) · /gm)].map((m) => m[1])

for (const storage of ['fs', 'sqlite'] as const) {
  const test = suite<{ root: string; conn: Connection }>(
    `memory_forget and lookup by id over stdio (${storage} storage)`,
  )
  test.before(async (ctx) => {
    ctx.root = tempDir()
    const init = cli(['init', '--storage', storage], { cwd: ctx.root })
    assert.is(init.code, 0, init.stderr)
    ctx.conn = await connect(ctx.root)
    for (const fact of [cents, invoices]) assert.not.ok((await call(ctx.conn.client, 'memory_write', fact)).isError)
  })
  test.after(async (ctx) => {
    await ctx.conn.close()
    cleanup()
  })

  test('memory_search with fact ids returns those facts, and names the unknown ones', async ({ conn }) => {
    const found = await call(conn.client, 'memory_search', { query: 'fact-0002 fact-0001 fact-0042' })
    assert.not.ok(found.isError)
    assert.equal(blockIds(found.text), ['fact-0002', 'fact-0001'])
    assert.match(
      found.text,
      /^### fact-0002 · convention · confidence medium\n\*\*Invoices are numbered per year\*\*\n/,
    )
    assert.match(found.text, /\n\nUnknown fact id: fact-0042\. List ids with `foundry list --status all`\.$/)
  })

  test('memory_forget: the fact leaves search and the index, stays stored with its reason; found by id with its status', async ({
    conn,
    root,
  }) => {
    const forgotten = await call(conn.client, 'memory_forget', { id: 'fact-0001', reason: 'We store decimals now' })
    assert.not.ok(forgotten.isError, forgotten.text)
    assert.match(
      forgotten.text,
      /^forgotten: fact-0001\nIndex: 1\/1 facts listed, ~\d+ tokens, 0 omitted over budget\.$/,
    )
    assert.equal(Object.keys(forgotten.structured ?? {}), ['id', 'reason', 'forgotten'])
    assert.is(forgotten.structured?.reason, 'We store decimals now')
    assert.match(forgotten.structured?.forgotten, /^\d{4}-\d\d-\d\dT/)

    const search = await call(conn.client, 'memory_search', { query: 'integer cents' })
    assert.equal(blockIds(search.text), ['fact-0002'])
    assert.not.match(search.text, /fact-0001/)
    const index = await conn.client.readResource({ uri: 'foundry://memory/index' })
    assert.not.match(JSON.stringify(index), /fact-0001/)
    const byId = await call(conn.client, 'memory_search', { query: 'fact-0001' })
    assert.match(byId.text, /\nstatus: forgotten on \d{4}-\d\d-\d\d: We store decimals now$/)
    assert.equal(blockIds(byId.text), ['fact-0001'])

    const listed = cli(['list', '--status', 'forgotten'], { cwd: root })
    assert.is(
      listed.stdout,
      'fact-0001 · convention · medium · Money is stored in integer cents (forgotten: We store decimals now)\n',
    )
    if (storage === 'fs')
      assert.match(
        readFileSync(join(root, '.foundry', 'memory', 'facts', 'fact-0001.md'), 'utf8'),
        /\nstatus: forgotten\nforgotten: .+\nforgottenReason: We store decimals now\n---\n/,
      )
  })

  test('memory_forget errors: unknown id, a forgotten one, a bad id, no reason', async ({ conn }) => {
    assert.equal(await call(conn.client, 'memory_forget', { id: 'fact-0099', reason: 'x' }), {
      text: 'memory_forget failed: No fact fact-0099. List ids with `foundry list --status all`.',
      structured: undefined,
      isError: true,
    })
    assert.is(
      (await call(conn.client, 'memory_forget', { id: 'fact-0001', reason: 'x' })).text,
      'memory_forget failed: fact-0001 is already forgotten (We store decimals now); nothing to do',
    )
    assert.match(
      (await call(conn.client, 'memory_forget', { id: 'cents', reason: 'x' })).text,
      /^memory_forget failed: Invalid arguments: id has the wrong form: use a fact id/,
    )
    assert.is(
      (await call(conn.client, 'memory_forget', { id: 'fact-0002' })).text,
      'memory_forget failed: Invalid arguments: missing required property "reason"',
    )
  })

  test.run()
}

const superseded = suite('memory_forget: a superseded fact is a clear error')
superseded.after(cleanup)
superseded('names the fact that superseded it', async () => {
  const root = tempDir()
  cli(['init'], { cwd: root })
  const conn = await connect(root)
  try {
    await call(conn.client, 'memory_write', {
      title: 'API timeout is 30 seconds',
      body: 'Gateways cut at 35 s.',
      type: 'constraint',
    })
    await call(conn.client, 'memory_write', {
      title: 'API timeout is 60 seconds',
      body: 'Gateways cut at 65 s.',
      type: 'constraint',
    })
    const result = await call(conn.client, 'memory_forget', { id: 'fact-0001', reason: 'x' })
    assert.ok(result.isError)
    assert.is(
      result.text,
      'memory_forget failed: fact-0001 is superseded by fact-0002 and already out of the index and search; forget the active fact of its history instead',
    )
  } finally {
    await conn.close()
  }
})
superseded.run()
