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
  const http = await serveHttp({ name: 'test', session, tools: [], sessionIdleMs: 150, log: (l) => lines.push(l) })
  try {
    const client = await httpClient(http.url)
    await client.listTools()
    await new Promise((r) => setTimeout(r, 700))
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
  assert.throws(() => loadTokens('/nonexistent', { FOUNDRY_TOKENS: 'bad name:read:x' }), /FOUNDRY_TOKENS entry 1: write it as name:role\[\+role\]:secret/)
})

test.run()
