// The official MCP conformance suite (pinned in @foundry/cli's devDependencies, run with its Node 20 shim) against `marbles mcp --http`.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { AGENTS, BIN, HERE, newProject, until } from './helpers.js'

/** What this test uses of foundry/test/conformance/run.ts (outside this package's rootDir: loaded at run time). */
interface ConformanceRunner {
  GENERIC_SCENARIOS: string[]
  MARBLES_EXPECTED: string
  runScenario(url: string, scenario: string, expected: string): Promise<{ code: number | null; output: string }>
  withBearer(url: string, token: string): Promise<{ url: string; close: () => Promise<void> }>
}

// The runner, the shim, the token proxy and the baselines live beside @foundry/cli's conformance test.
const RUNNER = pathToFileURL(join(HERE, '..', '..', 'foundry', 'test', 'conformance', 'run.ts')).href

test('marbles mcp --http passes the generic server scenarios, bar the expected failures (each with its reason)', async () => {
  const { GENERIC_SCENARIOS, MARBLES_EXPECTED, runScenario, withBearer } = (await import(RUNNER)) as ConformanceRunner
  const root = await newProject('fs')
  const runtimeDir = mkdtempSync(join(tmpdir(), 'marbles-runtime-'))
  const child = spawn(process.execPath, [BIN, '--root', root, '--source', AGENTS, 'mcp', '--http', '--port', '0'], {
    cwd: HERE,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, FOUNDRY_TOKENS: '', XDG_RUNTIME_DIR: runtimeDir },
  })
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  let proxy: Awaited<ReturnType<ConformanceRunner['withBearer']>> | undefined
  try {
    const url = await until(
      () => /serving MCP over HTTP at (\S+)/.exec(stderr)?.[1],
      20_000,
      `the URL (stderr: ${stderr})`,
    )
    // The suite sends no token; the server requires the user's local one.
    proxy = await withBearer(url, readFileSync(join(runtimeDir, 'foundry', 'http.token'), 'utf8').trim())
    for (const scenario of GENERIC_SCENARIOS) {
      const { code, output } = await runScenario(proxy.url, scenario, MARBLES_EXPECTED)
      assert.is(code, 0, `${scenario}:\n${output}`)
    }
  } finally {
    await proxy?.close()
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
    rmSync(runtimeDir, { recursive: true, force: true })
  }
})

test.run()
