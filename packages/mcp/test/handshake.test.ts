// What `foundry mcp` answers to initialize before the SDK loads is exactly what the SDK's Server answers.
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { initializeResult } from '../src/handshake.js'
import { createServer } from '../src/server.js'

const initialize = (id: number, protocolVersion = '2025-06-18') => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
})

test("the initialize answer given before the SDK loads is the SDK Server's own, for every protocol version and an unknown one", async () => {
  for (const version of [...SUPPORTED_PROTOCOL_VERSIONS, '1999-01-01']) {
    const request = initialize(1, version)
    const server = createServer({ kernel: async () => Promise.reject(new Error('not used')) })
    const [client, end] = InMemoryTransport.createLinkedPair()
    await server.connect(end)
    const answer = new Promise<JSONRPCMessage>((resolve) => (client.onmessage = resolve))
    await client.start()
    await client.send(request as JSONRPCMessage)
    assert.equal(initializeResult(request), ((await answer) as { result: unknown }).result, version)
    await server.close()
  }
  assert.is(
    initializeResult({ ...initialize(1, '2025-06-18'), extra: 1 }),
    undefined,
    'what the SDK would refuse is left to it',
  )
  assert.is(
    initializeResult({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } }),
    undefined,
  )
})

test.run()
