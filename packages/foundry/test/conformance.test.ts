// The official MCP conformance suite (pinned @modelcontextprotocol/conformance) against `foundry mcp --http`.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { BIN, cleanup, tempProject } from './helpers.js'
import { startHttp } from './http-helpers.js'
import { FOUNDRY_EXPECTED, GENERIC_SCENARIOS, runScenario, withBearer } from './conformance/run.js'

test('foundry mcp --http passes the generic server scenarios, bar the expected failures (each with its reason)', async () => {
  const server = await startHttp(BIN, ['mcp', '--http', '--port', '0', '--root', tempProject()], {
    FOUNDRY_HOOK_SERVER: 'off',
    FOUNDRY_TOKENS: undefined,
  })
  const proxy = await withBearer(server.url, server.localToken()!) // the suite sends no token; the server requires its local one
  try {
    for (const scenario of GENERIC_SCENARIOS) {
      const { code, output } = await runScenario(proxy.url, scenario, FOUNDRY_EXPECTED)
      assert.is(code, 0, `${scenario}:\n${output}`)
    }
  } finally {
    await proxy.close()
    await server.stop()
    cleanup()
  }
})

test.run()
