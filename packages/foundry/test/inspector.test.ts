import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { BIN, cleanup, tempProject } from './helpers.js'

const VERSION = '2.12.0'

/** The pinned inspector from node_modules when installed there, else the same version through npx. */
function inspector(): { command: string; args: string[] } {
  try {
    const pkg = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json')
    return { command: process.execPath, args: [pkg.replace(/package\.json$/, 'clients/launcher/build/index.js')] }
  } catch {
    return { command: 'npx', args: ['-y', `@modelcontextprotocol/inspector@${VERSION}`] }
  }
}

const test = suite('MCP Inspector (headless)')
test.after(cleanup)

test('the inspector CLI lists the eleven tools', () => {
  const { command, args } = inspector()
  // The server starts in the inspector's directory: the project.
  const run = spawnSync(command, [...args, '--cli', process.execPath, BIN, 'mcp', '--method', 'tools/list'], {
    cwd: tempProject(),
    encoding: 'utf8',
    timeout: 180_000,
  })
  assert.is(run.status, 0, run.stderr)
  const { tools } = JSON.parse(run.stdout) as { tools: Array<{ name: string }> }
  assert.equal(
    tools.map((t) => t.name),
    [
      'memory_search',
      'memory_write',
      'memory_index',
      'runbook_list',
      'runbook_get',
      'contract_validate',
      'blackboard_write',
      'blackboard_read',
      'token_report',
      'memory_forget',
      'memory_review',
    ],
  )
})

test.run()
