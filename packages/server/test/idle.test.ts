// `FoundryStdioTransport.idle()`: a real stdio server process and the MCP SDK's own client.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'

const SERVER = fileURLToPath(new URL('./fixtures/idle-server.mjs', import.meta.url))

test('idle() resolves once no request read waits for its answer, not while one does', async () => {
  const client = new Client({ name: 'idle-test', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'inherit' }))
  const seen = async (name: string) =>
    (await client.callTool({ name, arguments: {} })).structuredContent as {
      armed: number
      idled: number
      holding: number
    }
  try {
    await seen('arm')
    assert.is((await seen('peek')).idled, 1, 'idle once arm was answered and nothing else was waiting')
    const held = client.callTool({ name: 'hold', arguments: {} })
    for (let i = 0; i < 1000 && (await seen('peek')).holding === 0; i++);
    await seen('arm')
    assert.equal(await seen('peek'), { armed: 2, idled: 1, holding: 1 }, 'not idle while hold waits')
    await seen('release')
    await held
    assert.equal(await seen('peek'), { armed: 2, idled: 2, holding: 0 }, 'idle once hold was answered')
  } finally {
    await client.close()
  }
})

test.run()
