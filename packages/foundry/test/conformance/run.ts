import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The generic server scenarios of the issue: those that need no tool, resource or prompt of the reference server. */
export const GENERIC_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'prompts-list', 'logging-set-level', 'server-sse-multiple-streams', 'dns-rebinding-protection']

const here = fileURLToPath(new URL('.', import.meta.url))
const CONFORMANCE = join(here, '..', '..', 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')

/**
 * Run one scenario of the pinned `@modelcontextprotocol/conformance` (with the Node 20 `fs.globSync`
 * shim) against `url`, the baseline `expected` (a YAML file of expected failures) applied: exit 0
 * when the scenario passes, or fails and is listed; 1 otherwise (a regression, or a stale entry).
 */
export function runScenario(url: string, scenario: string, expected: string): { code: number | null; output: string } {
  const out = mkdtempSync(join(tmpdir(), 'conformance-'))
  try {
    const run = spawnSync(process.execPath, ['--import', join(here, 'node20.mjs'), CONFORMANCE, 'server', '--url', url, '--scenario', scenario, '--expected-failures', expected, '-o', out], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    })
    return { code: run.status, output: `${run.stdout}${run.stderr}` }
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}

export const FOUNDRY_EXPECTED = join(here, 'foundry-expected-failures.yml')
export const MARBLES_EXPECTED = join(here, 'marbles-expected-failures.yml')
