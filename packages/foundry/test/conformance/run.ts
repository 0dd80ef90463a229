import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The generic server scenarios of the issue: those that need no tool, resource or prompt of the reference server. */
export const GENERIC_SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'prompts-list',
  'logging-set-level',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
]

const here = fileURLToPath(new URL('.', import.meta.url))
const CONFORMANCE = join(here, '..', '..', 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')

/**
 * Run one scenario of the pinned `@modelcontextprotocol/conformance` (with the Node 20 `fs.globSync`
 * shim) against `url`, the baseline `expected` (a YAML file of expected failures) applied: exit 0
 * when the scenario passes, or fails and is listed; 1 otherwise (a regression, or a stale entry).
 * Asynchronous, so a proxy in this process (`withBearer`) keeps answering meanwhile.
 */
export async function runScenario(
  url: string,
  scenario: string,
  expected: string,
): Promise<{ code: number | null; output: string }> {
  const out = mkdtempSync(join(tmpdir(), 'conformance-'))
  try {
    const run = spawn(
      process.execPath,
      [
        '--import',
        join(here, 'node20.mjs'),
        CONFORMANCE,
        'server',
        '--url',
        url,
        '--scenario',
        scenario,
        '--expected-failures',
        expected,
        '-o',
        out,
      ],
      {
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      },
    )
    let output = ''
    run.stdout.on('data', (d: Buffer) => (output += d.toString()))
    run.stderr.on('data', (d: Buffer) => (output += d.toString()))
    const killer = setTimeout(() => run.kill('SIGKILL'), 60_000)
    const code = await new Promise<number | null>((resolve) => run.once('close', (c) => resolve(c)))
    clearTimeout(killer)
    return { code, output }
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
}

export const FOUNDRY_EXPECTED = join(here, 'foundry-expected-failures.yml')
export const MARBLES_EXPECTED = join(here, 'marbles-expected-failures.yml')

/**
 * A loopback proxy to `url` that adds `Authorization: Bearer <token>` to every request (the suite
 * sends no token), its own port in the Host and Origin headers swapped for the server's so the
 * server's DNS-rebinding checks see what the suite sent. Resolves with the proxy's URL and its close.
 */
export async function withBearer(url: string, token: string): Promise<{ url: string; close: () => Promise<void> }> {
  const target = new URL(url)
  let own = ''
  const swap = (value: string | undefined) => value?.replace(own, `:${target.port}`)
  const proxy = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` }
    if (headers.host) headers.host = swap(headers.host)
    if (headers.origin) headers.origin = swap(headers.origin)
    const up = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    up.on('error', () => res.destroy())
    req.pipe(up)
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()))
  const port = (proxy.address() as { port: number }).port
  own = `:${port}`
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    close: () => new Promise<void>((resolve) => (proxy.closeAllConnections(), proxy.close(() => resolve()))),
  }
}
