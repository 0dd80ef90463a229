import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { BIN, cleanup, cli, tempProject } from './helpers.js'
import { httpClient, INITIALIZE, rawPost, startHttp, type HttpProcess } from './http-helpers.js'

const READ_TOOLS = [
  'blackboard_read',
  'contract_validate',
  'memory_search',
  'runbook_get',
  'runbook_list',
  'token_report',
]
const WRITE_TOOLS = ['blackboard_write', 'memory_forget', 'memory_index', 'memory_review', 'memory_write']
const running: HttpProcess[] = []
const serve = async (root: string, args: string[] = [], env: Record<string, string | undefined> = {}) => {
  const server = await startHttp(BIN, ['mcp', '--http', '--port', '0', '--root', root, ...args], {
    FOUNDRY_HOOK_SERVER: 'off',
    FOUNDRY_TOKENS: undefined,
    ...env,
  })
  running.push(server)
  return server
}
const fact = (i: number, who = 'x') => ({
  title: `Convention ${who} ${i}: files use kebab case ${i}`,
  body: `Every file ${i} of ${who} is named in kebab case.`,
  type: 'convention',
})
const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text
const token = (root: string, role: string, name: string) => {
  const created = cli(['token', 'create', '--role', role, '--name', name, '--root', root])
  assert.is(created.code, 0, created.stderr)
  return created.stdout.split('\n')[0]!
}

test.after.each(async () => {
  for (const server of running.splice(0)) if (server.child.exitCode === null) await server.stop()
})
test.after(cleanup)

test('several clients at once over Streamable HTTP, each its own session, on loopback with the local token', async () => {
  const root = tempProject()
  const server = await serve(root)
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
  const clients = await Promise.all([0, 1, 2, 3].map(() => httpClient(server.url, server.localToken())))
  const ids = new Set(clients.map((c) => (c.transport as { sessionId?: string }).sessionId))
  assert.is(ids.size, 4, 'one session per client')
  const tools = await clients[0]!.listTools()
  assert.equal(tools.tools.map((t) => t.name).sort(), [...READ_TOOLS, ...WRITE_TOOLS].sort())
  const written = await Promise.all(clients.map((c, i) => c.callTool({ name: 'memory_write', arguments: fact(i) })))
  for (const result of written) assert.not.ok((result as CallToolResult).isError, text(result))
  const found = await clients[3]!.callTool({ name: 'memory_search', arguments: { query: 'kebab case' } })
  for (const i of [0, 1, 2, 3]) assert.match(text(found), `Convention x ${i}`)
  await Promise.all(clients.map((c) => c.close()))
  assert.is(await server.stop(), 0)
})

test('a non-loopback address without a token is refused at start-up, naming --host and the fix', async () => {
  const root = tempProject()
  const run = cli(['mcp', '--http', '--host', '0.0.0.0', '--port', '0', '--root', root], {
    env: { FOUNDRY_HOOK_SERVER: 'off' },
  })
  assert.is(run.code, 1)
  assert.match(
    run.stderr,
    /--host 0\.0\.0\.0 is not a loopback address and no token is configured: create one with foundry token create/,
  )
})

test('DNS rebinding: a Host or Origin other than the server’s own is refused with 403 before any work', async () => {
  const root = tempProject()
  const server = await serve(root)
  const port = new URL(server.url).port
  const bad = await rawPost(server.url, INITIALIZE, { host: `evil.example:${port}` })
  assert.is(bad.status, 403)
  assert.match(bad.body, /Invalid Host header/)
  const origin = await rawPost(server.url, INITIALIZE, { origin: 'http://evil.example' })
  assert.is(origin.status, 403)
  const good = await rawPost(server.url, INITIALIZE, {
    host: `localhost:${port}`,
    authorization: `Bearer ${server.localToken()}`,
  })
  assert.is(good.status, 200)
})

test('auth: missing and wrong tokens get 401; a read token sees and calls only read tools; write calls refused on every tool', async () => {
  const root = tempProject()
  const reader = token(root, 'read', 'rita')
  const writer = token(root, 'write', 'walt')
  assert.match(reader, /^fdy_[\w-]{32}$/)
  const file = readFileSync(join(root, '.foundry', 'tokens.json'), 'utf8')
  assert.not.match(file, reader.slice(4), 'the secret is never stored')
  assert.match(file, /"sha256": "[0-9a-f]{64}"/)
  const server = await serve(root)
  for (const headers of [
    {} as Record<string, string>,
    { authorization: 'Bearer fdy_wrong' },
    { authorization: `Basic ${reader}` },
  ]) {
    const answer = await rawPost(server.url, INITIALIZE, headers)
    assert.is(answer.status, 401, JSON.stringify(headers))
  }
  let refused: unknown
  await httpClient(server.url).catch((error: unknown) => (refused = error))
  assert.ok(refused, 'the SDK client without a token cannot connect')

  const read = await httpClient(server.url, reader)
  assert.equal((await read.listTools()).tools.map((t) => t.name).sort(), READ_TOOLS)
  for (const name of WRITE_TOOLS) {
    const result = (await read.callTool({ name, arguments: {} })) as CallToolResult
    assert.ok(result.isError, name)
    assert.match(text(result), `${name} refused: the token rita has role read; ${name} needs write`)
  }
  for (const name of READ_TOOLS) {
    const result = (await read.callTool({ name, arguments: {} })) as CallToolResult
    assert.not.match(text(result), 'refused', name)
  }
  // A session belongs to the token that opened it.
  const sessionId = (read.transport as { sessionId?: string }).sessionId!
  const hijack = await rawPost(
    server.url,
    { jsonrpc: '2.0', id: 9, method: 'tools/list' },
    { authorization: `Bearer ${writer}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
  )
  assert.is(hijack.status, 403)

  // Attribution: the writer's fact names it in `author`, and every call's event names the token.
  const write = await httpClient(server.url, writer)
  assert.equal((await write.listTools()).tools.map((t) => t.name).sort(), [...READ_TOOLS, ...WRITE_TOOLS].sort())
  const written = (await write.callTool({ name: 'memory_write', arguments: fact(1, 'walt') })) as CallToolResult
  assert.not.ok(written.isError, text(written))
  const id = (written.structuredContent as { id: string }).id
  await Promise.all([read.close(), write.close()])
  assert.is(await server.stop(), 0)
  assert.match(
    readFileSync(join(root, '.foundry', 'memory', 'facts', `${id}.md`), 'utf8'),
    /\nsource: conversation\nauthor: walt\n/,
  )
  const events = findEvents(root)
  assert.ok(
    events.some(
      (e) =>
        e.kind === 'mcp.tool_call' &&
        e.data?.tool === 'memory_write' &&
        e.data.token === 'walt' &&
        e.data.status === 'ok',
    ),
    'the write names walt',
  )
  assert.ok(
    events.some(
      (e) =>
        e.kind === 'mcp.tool_call' &&
        e.data?.tool === 'memory_write' &&
        e.data.token === 'rita' &&
        e.data.status === 'refused',
    ),
    'the refusal names rita',
  )
  const raw = JSON.stringify(events)
  assert.not.match(raw, reader.slice(4))
  assert.not.match(raw, writer.slice(4))
  assert.not.match(server.stderr(), reader.slice(4))
})

test('foundry token revoke: two running servers on one folder refuse the token at once, no restart; the other token still works', async () => {
  const root = tempProject()
  const gone = token(root, 'read', 'gone')
  const kept = token(root, 'read', 'kept')
  const servers = [await serve(root), await serve(root)]
  const status = async (server: HttpProcess, secret: string) =>
    (await rawPost(server.url, INITIALIZE, { authorization: `Bearer ${secret}` })).status
  for (const server of servers) assert.is(await status(server, gone), 200)
  const revoked = cli(['token', 'revoke', 'gone', '--root', root])
  assert.is(revoked.code, 0, revoked.stderr)
  assert.match(
    revoked.stdout,
    /^token gone \(read\) revoked in .*tokens\.json; running servers refuse it within a second\n$/,
  )
  // The file is checked on every request: the first request after the revocation is refused.
  for (const server of servers) assert.is(await status(server, gone), 401)
  for (const server of servers) assert.is(await status(server, kept), 200)
  assert.equal(
    JSON.parse(cli(['token', 'list', '--json', '--root', root]).stdout).map((t: { name: string }) => t.name),
    ['kept'],
  )
  const again = cli(['token', 'revoke', 'gone', '--root', root])
  assert.is(again.code, 1)
  assert.match(
    again.stderr,
    /^error: token gone: there is no token of that name in .*tokens\.json; foundry token list shows the names\n$/,
  )
})

test('FOUNDRY_TOKENS: tokens from the environment; a malformed entry is one line naming it', async () => {
  const root = tempProject()
  const server = await serve(root, [], { FOUNDRY_TOKENS: 'ci:read:s3cret-one,ops:write+run:s3cret-two' })
  const ci = await httpClient(server.url, 's3cret-one')
  assert.equal((await ci.listTools()).tools.map((t) => t.name).sort(), READ_TOOLS)
  await ci.close()
  const bad = cli(['mcp', '--http', '--port', '0', '--root', root], {
    env: { FOUNDRY_TOKENS: 'ci:admin:x', FOUNDRY_HOOK_SERVER: 'off' },
  })
  assert.is(bad.code, 1)
  assert.match(bad.stderr, /FOUNDRY_TOKENS entry 1 \(ci\): role "admin"; use read, write or run/)
})

test('SIGTERM: new requests refused, calls in flight finished, the storage closed, exit 0', async () => {
  const root = tempProject()
  const server = await serve(root)
  const client = await httpClient(server.url, server.localToken())
  const calls = Array.from({ length: 24 }, (_, i) =>
    client.callTool({ name: 'memory_write', arguments: fact(i, 'term') }).then(
      (r) => ({
        ok: !(r as CallToolResult).isError,
        id: ((r as CallToolResult).structuredContent as { id?: string } | undefined)?.id,
        error: '',
      }),
      (error: unknown) => ({ ok: false, id: undefined, error: String(error) }),
    ),
  )
  await new Promise((r) => setTimeout(r, 15))
  server.child.kill('SIGTERM')
  const results = await Promise.all(calls)
  assert.is(await server.exited, 0)
  assert.match(server.stderr(), /SIGTERM: stopping/)
  for (const r of results)
    if (!r.ok) assert.match(r.error, /503|shutting down|fetch failed|ECONNREFUSED|other side closed|socket/i, r.error)
  // Every write that was answered is stored, and the project reopens cleanly.
  const answered = results.filter((r) => r.ok).map((r) => r.id)
  const listed = cli(['list', '--json', '--root', root])
  assert.is(listed.code, 0, listed.stderr)
  for (const id of answered) assert.match(listed.stdout, `"${id}"`)
})

function findEvents(root: string): Array<{ kind: string; data?: Record<string, unknown> }> {
  const out: Array<{ kind: string; data?: Record<string, unknown> }> = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name))
      else if (entry.name === 'events.jsonl')
        for (const line of readFileSync(join(dir, entry.name), 'utf8').split('\n'))
          if (line.trim()) out.push(JSON.parse(line))
    }
  }
  walk(join(root, '.foundry'))
  return out
}

test.run()
