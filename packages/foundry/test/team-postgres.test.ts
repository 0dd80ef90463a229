import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { createDatabase, startTestDatabase, type TestDatabase } from '@foundry/adapter-postgres/testing'
import { BIN, call, cleanup, cli, readText, tempDir } from './helpers.js'
import { httpClient, INITIALIZE, rawPost, startHttp, type HttpProcess } from './http-helpers.js'

// Several `foundry mcp --http` servers on one PostgreSQL database, each in its own project folder
// (as on several machines: nothing but the database is shared): tokens live in the database and a
// revocation reaches every server; each server sees the others' writes; ids stay gapless.

const test = suite<{ server: TestDatabase }>('several foundry mcp --http servers on one PostgreSQL database')
test.before(async (ctx) => {
  ctx.server = await startTestDatabase()
})
test.after(async (ctx) => {
  await ctx.server?.stop()
  cleanup()
})

/** Polls `check` until it holds, at most `ms`: a generous bound (the lag itself is a bench figure). */
async function eventually(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** `count` project folders on one fresh database, and a `foundry` CLI environment for them. */
async function team(server: TestDatabase, count: number) {
  const env = { FOUNDRY_DATABASE_URL: await createDatabase(server.url), FOUNDRY_HOOK_SERVER: 'off' }
  const roots = Array.from({ length: count }, () => tempDir())
  for (const root of roots) {
    const init = cli(['init', '--storage', 'postgres'], { cwd: root, env })
    assert.is(init.code, 0, init.stderr)
  }
  const token = (root: string, ...args: string[]) => {
    const run = cli(['token', ...args, '--json'], { cwd: root, env })
    assert.is(run.code, 0, run.stderr)
    return JSON.parse(run.stdout)
  }
  const serve = () =>
    Promise.all(roots.map((root) => startHttp(BIN, ['mcp', '--http', '--port', '0', '--root', root], env)))
  return { env, roots, token, serve }
}

/** `foundry ui --port 0` in `root`: its URL once it prints it (at most 20 s). */
async function startUi(root: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'ui', '--port', '0'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  })
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  await eventually(
    `foundry ui prints its address (${stderr})`,
    async () => /foundry console: (\S+)/.test(stderr) || child.exitCode !== null,
  )
  const url = /foundry console: (\S+)/.exec(stderr)?.[1]
  if (!url) throw new Error(`foundry ui did not start: ${stderr}`)
  return { url, stop: () => (child.kill('SIGTERM'), exited) }
}

const status = async (server: HttpProcess, secret: string) =>
  (await rawPost(server.url, INITIALIZE, { authorization: `Bearer ${secret}` })).status

test("a token created in one folder is the whole team's; revoked in another, every running server answers 401 (no restart)", async ({
  server,
}) => {
  const { env, roots, token, serve } = await team(server, 2)
  const alice = token(roots[0]!, 'create', '--role', 'read+write', '--name', 'alice@team').secret as string
  const bob = token(roots[0]!, 'create', '--role', 'read', '--name', 'bob').secret as string
  assert.not.ok(
    existsSync(join(roots[0]!, '.foundry', 'tokens.json')),
    'the tokens live in the database, not in a file',
  )
  assert.equal(
    (token(roots[1]!, 'list') as Array<{ name: string }>).map((t) => t.name),
    ['alice@team', 'bob'],
  )
  const servers = await serve()
  const ui = await startUi(roots[1]!, env)
  let client: Client | undefined
  try {
    for (const s of servers) assert.is(await status(s, alice), 200, s.stderr())
    const facts = (secret?: string) =>
      fetch(`${ui.url}api/facts`, secret ? { headers: { authorization: `Bearer ${secret}` } } : {}).then(
        (r) => r.status,
      )
    assert.equal([await facts(), await facts(alice)], [401, 200], "foundry ui requires the database's tokens")
    client = await httpClient(servers[1]!.url, alice) // a session opened before the revocation
    assert.not.ok((await call(client, 'memory_search', { query: 'anything' })).isError)

    const revoked = token(roots[1]!, 'revoke', 'alice@team')
    assert.equal([revoked.name, revoked.revoked], ['alice@team', true])
    await eventually('every server refuses the revoked token', async () =>
      (await Promise.all(servers.map((s) => status(s, alice)))).every((code) => code === 401),
    )
    await eventually('foundry ui refuses it too', async () => (await facts(alice)) === 401)
    let error: unknown
    await client
      .callTool({ name: 'memory_search', arguments: { query: 'anything' } })
      .catch((e: unknown) => (error = e))
    assert.match(String(error), /401|Unauthorized/, 'the open session is refused too')
    for (const s of servers) assert.is(await status(s, bob), 200, 'the other token still works')
    assert.equal(
      (token(roots[0]!, 'list') as Array<{ name: string }>).map((t) => t.name),
      ['bob'],
    )
    const again = cli(['token', 'revoke', 'alice@team'], { cwd: roots[0]!, env })
    assert.is(again.code, 1)
    assert.match(
      again.stderr,
      /^error: token alice@team: there is no token of that name in postgres:\/\/[^\n]*; foundry token list shows the names\n$/,
    )
  } finally {
    await client?.close().catch(() => undefined)
    await Promise.all([...servers.map((s) => s.stop()), ui.stop()])
  }
})

test("three servers on one database: each one's search and index see another's write; concurrent writes lose nothing, ids gapless", async ({
  server,
}) => {
  const { roots, token, serve } = await team(server, 3)
  const secret = token(roots[0]!, 'create', '--role', 'read+write', '--name', 'team').secret as string
  const servers = await serve()
  const clients: Client[] = []
  try {
    for (const s of servers) clients.push(await httpClient(s.url, secret), await httpClient(s.url, secret))
    const on = (k: number) => clients[2 * k]!
    const acked: string[] = []
    const write = async (client: Client, title: string) => {
      const result = await call(client, 'memory_write', {
        title,
        body: `Written for the team test: ${title}.`,
        type: 'convention',
      })
      assert.not.ok(result.isError, result.text)
      acked.push(String(result.structured!.id))
      return String(result.structured!.id)
    }

    // A write on each server, found by the search and the index of every other.
    for (const [k, word] of ['zanzibar', 'quokka', 'okapi'].entries()) {
      const id = await write(on(k), `The ${word} service owns billing retries`)
      for (const other of [0, 1, 2].filter((j) => j !== k)) {
        await eventually(`server ${other} finds ${id} by search`, async () =>
          (await call(on(other), 'memory_search', { query: word })).text.includes(id),
        )
        await eventually(`server ${other}'s index lists ${id}`, async () =>
          (await readText(on(other), 'foundry://memory/index')).includes(id),
        )
      }
    }

    // Six clients over three servers write at once: every acknowledged id is distinct, and together they run 1..N.
    await Promise.all(
      clients.map((client, c) =>
        Promise.all(
          Array.from({ length: 5 }, (_, i) =>
            write(client, `Concurrent decision ${c}-${i}: queue ${c * 10 + i} is partitioned by tenant`),
          ),
        ),
      ),
    )
    const numbers = acked.map((id) => Number(/^fact-(\d+)$/.exec(id)?.[1])).sort((x, y) => x - y)
    assert.is(numbers.length, 33)
    assert.equal(
      numbers,
      Array.from({ length: 33 }, (_, i) => i + 1),
      'ids gapless and none given twice',
    )
    // Nothing lost: every server can read back every acknowledged fact.
    for (const k of [0, 1, 2])
      await eventually(`server ${k} returns every acknowledged fact`, async () => {
        const found = await call(on(k), 'memory_search', { query: acked.join(' ') })
        return acked.every((id) => found.text.includes(id))
      })
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)))
    await Promise.all(servers.map((s) => s.stop()))
  }
})

test.run()
