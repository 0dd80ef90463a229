// A real tool server process over HTTP with tokens, the MCP SDK's own client: roles come from the rows.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { httpClient } from './helpers.js'

const SERVER = fileURLToPath(new URL('./fixtures/roles-server.mjs', import.meta.url))
const text = (result: unknown) =>
  (((result as { content?: unknown }).content as Array<{ text?: string }> | undefined) ?? [])
    .map((c) => c.text ?? '')
    .join('')

test('a read token lists and calls only the read tool; its write and run calls are refused and never run', async () => {
  const child = spawn(process.execPath, [SERVER], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      FOUNDRY_TOKEN_FILE: '/nonexistent/tokens.json',
      FOUNDRY_TOKENS: 'rita:read:secret-r,wes:write:secret-w',
    },
  })
  let stderr = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
        const match = /serving MCP over HTTP at (\S+)/.exec(stderr)
        if (match) resolve(match[1]!)
      })
      void exited.then((code) => reject(new Error(`exited ${code} before listening: ${stderr}`)))
    })
    const rita = await httpClient(url, 'secret-r')
    assert.equal(
      (await rita.listTools()).tools.map((t) => t.name),
      ['count_read'],
    )
    for (const [name, needs] of [
      ['count_add', 'write'],
      ['count_reset', 'run'],
    ] as const) {
      const refused = await rita.callTool({ name, arguments: {} })
      assert.is(refused.isError, true)
      assert.match(text(refused), `${name} refused: the token rita has role read; ${name} needs ${needs}`)
    }
    assert.match(
      text(await rita.callTool({ name: 'count_read', arguments: {} })),
      'value 0',
      'the refused write never ran',
    )
    const wes = await httpClient(url, 'secret-w')
    assert.equal(
      (await wes.listTools()).tools.map((t) => t.name),
      ['count_read', 'count_add'],
    )
    assert.match(text(await wes.callTool({ name: 'count_add', arguments: {} })), 'added: 1')
    assert.match(text(await rita.callTool({ name: 'count_read', arguments: {} })), 'value 1')
    await rita.close()
    await wes.close()
  } finally {
    child.kill('SIGTERM')
    await exited
  }
})

test.run()
