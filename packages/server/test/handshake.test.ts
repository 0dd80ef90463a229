// The `initialize` answer given before the SDK loads negotiates the versions the SDK's Server does.
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { initializeAnswer, PROTOCOL_VERSIONS } from '../src/handshake.js'

const answer = initializeAnswer({ info: { name: 'kit', version: '1.0.0' }, capabilities: { tools: {} } })
const initialize = (protocolVersion: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
})

test("the protocol versions are the SDK Server's, newest first", () => {
  assert.equal(PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS)
})

test('a known version is kept, an unknown one answered with the newest', () => {
  for (const version of SUPPORTED_PROTOCOL_VERSIONS)
    assert.equal((answer(initialize(version)) as { protocolVersion: string }).protocolVersion, version)
  assert.equal(
    (answer(initialize('1999-01-01')) as { protocolVersion: string }).protocolVersion,
    SUPPORTED_PROTOCOL_VERSIONS[0],
  )
})

test.run()
