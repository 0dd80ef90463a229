// The official MCP conformance suite (pinned in @foundry/cli's devDependencies, run with its Node 20 shim) against `marbles mcp --http`.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { AGENTS, BIN, HERE, newProject, until } from './helpers.js'

// The runner, the shim and the baselines live beside @foundry/cli's conformance test (foundry/test/conformance/).
const SHARED = join(HERE, '..', '..', 'foundry', 'test', 'conformance')
const CONFORMANCE = join(HERE, '..', '..', 'foundry', 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')
const MARBLES_EXPECTED = join(SHARED, 'marbles-expected-failures.yml')
const GENERIC_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'prompts-list', 'logging-set-level', 'server-sse-multiple-streams', 'dns-rebinding-protection']

function runScenario(url: string, scenario: string, expected: string): { code: number | null; output: string } {
  const out = mkdtempSync(join(tmpdir(), 'conformance-'))
  try {
    const run = spawnSync(process.execPath, ['--import', join(SHARED, 'node20.mjs'), CONFORMANCE, 'server', '--url', url, '--scenario', scenario, '--expected-failures', expected, '-o', out], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } })
    return { code: run.status, output: `${run.stdout}${run.stderr}` }
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}

test('marbles mcp --http passes the generic server scenarios, bar the expected failures (each with its reason)', async () => {
  const root = await newProject('fs')
  const child = spawn(process.execPath, [BIN, '--root', root, '--source', AGENTS, 'mcp', '--http', '--port', '0'], { cwd: HERE, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, FOUNDRY_TOKENS: '' } })
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  try {
    const url = await until(() => /serving MCP over HTTP at (\S+)/.exec(stderr)?.[1], 20_000, `the URL (stderr: ${stderr})`)
    for (const scenario of GENERIC_SCENARIOS) {
      const { code, output } = runScenario(url, scenario, MARBLES_EXPECTED)
      assert.is(code, 0, `${scenario}:\n${output}`)
    }
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
  }
})

test.run()
