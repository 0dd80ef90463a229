// `foundry mcp --http` under a greedy token: sessions capped per token (the oldest idle one evicted,
// a share kept for other tokens), and bytes in flight bounded per token. Through the built bin.
import { request } from 'node:http'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { BIN, cleanup, tempProject } from './helpers.js'
import { httpClient, INITIALIZE, rawPost, startHttp, type HttpProcess } from './http-helpers.js'

const TOKENS = 'rita:read:read-secret-1,wanda:write:write-secret-2'
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` })
const running: HttpProcess[] = []
const serve = async (env: Record<string, string>) => {
  const server = await startHttp(BIN, ['mcp', '--http', '--port', '0', '--root', tempProject()], {
    FOUNDRY_HOOK_SERVER: 'off',
    FOUNDRY_TOKENS: TOKENS,
    ...env,
  })
  running.push(server)
  return server
}

test.after.each(async () => {
  for (const server of running.splice(0)) if (server.child.exitCode === null) await server.stop()
})
test.after(cleanup)

/** A raw initialize as `secret`: the new session's id. */
async function initialize(url: string, secret: string, clientName = 'raw'): Promise<string> {
  const message = { ...INITIALIZE, params: { ...INITIALIZE.params, clientInfo: { name: clientName, version: '1' } } }
  const answer = await new Promise<{ status: number; id: string | undefined }>((resolve, reject) => {
    const target = new URL(url)
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...bearer(secret),
        },
      },
      (res) => {
        res.resume()
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, id: res.headers['mcp-session-id'] as string | undefined }),
        )
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(message))
  })
  assert.is(answer.status, 200)
  assert.ok(answer.id, 'a session id')
  return answer.id!
}

const ping = (url: string, secret: string, session: string) =>
  rawPost(
    url,
    { jsonrpc: '2.0', id: 2, method: 'ping' },
    { ...bearer(secret), 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
  )

test('one read token opening more sessions than its cap: its oldest idle ones are evicted (404, initialize again), and a writer still gets in', async () => {
  const server = await serve({ FOUNDRY_HTTP_SESSIONS: '6', FOUNDRY_HTTP_SESSIONS_PER_TOKEN: '4' })
  const ids: string[] = []
  for (let i = 0; i < 10; i++) ids.push(await initialize(server.url, 'read-secret-1'))
  const evicted = await ping(server.url, 'read-secret-1', ids[0]!)
  assert.is(evicted.status, 404, evicted.body)
  assert.match(evicted.body, /Session not found: initialize again/)
  for (const id of ids.slice(-4))
    assert.is((await ping(server.url, 'read-secret-1', id)).status, 200, 'the newest four are kept')
  const writer = await httpClient(server.url, 'write-secret-2')
  const written = (await writer.callTool({
    name: 'memory_write',
    arguments: { title: 'Writers get in', body: 'A greedy reader cannot fill the table.', type: 'convention' },
  })) as CallToolResult
  assert.not.ok(written.isError, JSON.stringify(written.content))
  await writer.close()
  const again = await initialize(server.url, 'read-secret-1', 'x'.repeat(1024 * 1024)) // a huge client name is accepted (and kept short)
  assert.is((await ping(server.url, 'read-secret-1', again)).status, 200)
})

test('a full table makes room from its largest holder: another token still gets in, the greedy one loses its oldest idle session', async () => {
  const server = await serve({ FOUNDRY_HTTP_SESSIONS: '4', FOUNDRY_HTTP_SESSIONS_PER_TOKEN: '4' })
  const ids: string[] = []
  for (let i = 0; i < 4; i++) ids.push(await initialize(server.url, 'read-secret-1'))
  const writer = await initialize(server.url, 'write-secret-2')
  assert.is((await ping(server.url, 'write-secret-2', writer)).status, 200)
  assert.is(
    (await ping(server.url, 'read-secret-1', ids[0]!)).status,
    404,
    'the oldest idle session of the largest holder made room',
  )
  for (const id of ids.slice(1)) assert.is((await ping(server.url, 'read-secret-1', id)).status, 200)
})

/** A POST of `length` declared bytes, of which only the first byte is sent once the server has taken it in (100-continue): `finish()` sends the rest. */
async function holdBody(url: string, secret: string, length: number) {
  const target = new URL(url)
  const req = request({
    host: target.hostname,
    port: target.port,
    path: target.pathname,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': String(length),
      expect: '100-continue',
      ...bearer(secret),
    },
  })
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
  })
  answered.catch(() => {}) // a failed test stops the server under it: that is not the failure to report
  await new Promise<void>((resolve) => req.once('continue', resolve)) // the server's handler has started on it
  req.write('[')
  return { answered, finish: () => req.end(' '.repeat(length - 1)) }
}

test('a second large body from one token while one is in flight is refused (429) before it is read; another token is not', async () => {
  const server = await serve({})
  const size = 9 * 1024 * 1024
  const held = await holdBody(server.url, 'read-secret-1', size)
  const second = await rawPost(server.url, { pad: 'y'.repeat(size - 20) }, bearer('read-secret-1'))
  assert.is(second.status, 429, second.body)
  assert.match(second.body, /too many bytes in flight for the token rita/i)
  assert.match(second.body, /FOUNDRY_HTTP_INFLIGHT_BYTES/)
  const other = await rawPost(server.url, { pad: 'z'.repeat(size - 20) }, bearer('write-secret-2'))
  assert.is.not(other.status, 429, 'another token has its own budget')
  held.finish()
  assert.is(await held.answered, 400, 'the held body is read once sent (it is not an initialize)')
  let after = 0
  for (let i = 0; i < 200 && after !== 400; i++)
    after = (await rawPost(server.url, { pad: 'w'.repeat(size - 20) }, bearer('read-secret-1'))).status
  assert.is(after, 400, 'once the first body is done, the token may send another')
})

test.run()
