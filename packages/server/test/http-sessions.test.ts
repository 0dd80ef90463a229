// serveHttp in process: sessions a client abandoned expire; tokens are checked before the session.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { serveHttp } from '../src/http/serve.js'
import { loadTokens } from '../src/http/tokens.js'
import { httpClient } from './helpers.js'

const session = () => {
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }))
  return server
}

test('a session unused past sessionIdleMs is closed: its client gets 404 and must initialize again', async () => {
  const lines: string[] = []
  let closed = () => {}
  const expired = new Promise<void>((resolve) => (closed = resolve))
  const watched = () => Object.assign(session(), { onclose: () => closed() }) // the server learns its session ended
  const http = await serveHttp({
    name: 'test',
    session: watched,
    tools: [],
    sessionIdleMs: 5000,
    log: (l) => lines.push(l),
  }) // long enough for a handshake on a loaded machine
  try {
    const client = await httpClient(http.url)
    await client.listTools()
    let bound: NodeJS.Timeout | undefined
    const never = new Promise(
      (_, reject) =>
        (bound = setTimeout(() => reject(new Error('the idle session was never closed (waited 60 s)')), 60_000)),
    )
    await Promise.race([expired, never]).finally(() => clearTimeout(bound)) // the idle session was swept
    let error: unknown
    await client.listTools().catch((e: unknown) => (error = e))
    assert.match(String(error), /404|Session not found/)
    const again = await httpClient(http.url)
    assert.equal((await again.listTools()).tools, [])
    await again.close()
  } finally {
    await http.close(1000)
  }
  assert.match(lines.join('\n'), /no authentication: loopback only/)
})

test('tokens from FOUNDRY_TOKENS are hashed and matched in constant time; an unknown one is undefined', () => {
  const store = loadTokens('/nonexistent', { FOUNDRY_TOKENS: 'a:read:one, b:write+run:two' })
  assert.is(store.size, 2)
  assert.equal(store.verify('one'), { name: 'a', roles: ['read'] })
  assert.equal(store.verify('two'), { name: 'b', roles: ['write', 'run'] })
  assert.is(store.verify('three'), undefined)
  assert.throws(
    () => loadTokens('/nonexistent', { FOUNDRY_TOKENS: 'bad name:read:x' }),
    /FOUNDRY_TOKENS entry 1: write it as name:role\[\+role\]:secret/,
  )
})

test.run()
