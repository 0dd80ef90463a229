// Checks the .mcp.json beside this file the way an MCP client uses it: start the `foundry` server
// it names (command, args, env) in the project folder, complete the handshake, and call a tool.
// The one liberty: FOUNDRY_ROOT points the server at a temporary project, so the check leaves no
// .foundry/ folder here. In a real project the server's working directory is the root.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const here = import.meta.dirname
const config = JSON.parse(readFileSync(join(here, '.mcp.json'), 'utf8'))
const entry = config.mcpServers?.foundry
assert.ok(entry, '.mcp.json registers a server named "foundry"')
assert.equal(entry.type ?? 'stdio', 'stdio')

const root = mkdtempSync(join(tmpdir(), 'foundry-mcp-config-'))
const command = entry.command === 'node' ? process.execPath : entry.command
// The project exists once `foundry init` ran in it (the same bin the entry starts, with `init` instead of `mcp`).
assert.equal(
  spawnSync(command, [...entry.args.slice(0, -1), 'init'], { cwd: here, env: { ...process.env, FOUNDRY_ROOT: root } })
    .status,
  0,
  'foundry init',
)
const client = new Client({ name: 'mcp-config-check', version: '1.0.0' })
try {
  await client.connect(
    new StdioClientTransport({
      command,
      args: entry.args,
      cwd: here,
      env: { ...process.env, ...entry.env, FOUNDRY_ROOT: root },
      stderr: 'inherit',
    }),
  )
  assert.equal(client.getServerVersion()?.name, 'foundry')
  assert.match(client.getInstructions() ?? '', /^Foundry memory and contracts\./)
  const { tools } = await client.listTools()
  assert.equal(tools.length, 11) // the seed's nine, memory_forget and memory_review
  const result = await client.callTool({ name: 'memory_index', arguments: {} })
  assert.equal(result.isError, undefined)
  assert.ok(existsSync(join(root, '.foundry', 'memory', 'INDEX.md')), 'the server wrote to the project root')
  console.log(
    `.mcp.json starts "${entry.command} ${entry.args.join(' ')}": foundry ${client.getServerVersion()?.version}, ${tools.length} tools`,
  )
  console.log('mcp-config: ok')
} finally {
  await client.close()
  rmSync(root, { recursive: true, force: true })
}
