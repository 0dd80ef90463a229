// `marbles mcp --http`: the built bin on a loopback port, the SDK's own StreamableHTTPClientTransport.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { INITIALIZE as RAW_INITIALIZE, rawPost } from '@foundry/server/testing'
import { AGENTS, BIN, FAKE_BIN, HERE, newProject, until } from './helpers.js'

const TOKENS = 'rita:read:read-secret-1,rex:run:run-secret-2'
const children: ChildProcess[] = []
const runtimes: string[] = []

/** The bin with `--http` on a free port; its per-user runtime folder (XDG_RUNTIME_DIR) is a private one of the test's. */
async function serve(root: string, env: Record<string, string> = {}, source = AGENTS) {
  const runtimeDir = mkdtempSync(join(tmpdir(), 'marbles-runtime-'))
  runtimes.push(runtimeDir)
  const child = spawn(process.execPath, [BIN, '--root', root, '--source', source, 'mcp', '--http', '--port', '0'], {
    cwd: HERE,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PATH: `${FAKE_BIN}:${process.env.PATH}`,
      MARBLES_KILL_GRACE_MS: '400',
      FOUNDRY_TOKENS: '',
      XDG_RUNTIME_DIR: runtimeDir,
      ...env,
    },
  })
  children.push(child)
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  child.stdout!.on('data', () => {})
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = await until(
    () => /serving MCP over HTTP at (\S+)/.exec(stderr)?.[1],
    20_000,
    `the URL (stderr: ${stderr})`,
  )
  const tokenFile = join(runtimeDir, 'foundry', 'http.token')
  /** The local token the server wrote (a server without team tokens requires it), or undefined. */
  const localToken = () => (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : undefined)
  return { url, child, exited, stderr: () => stderr, tokenFile, localToken }
}

async function client(url: string, token?: string) {
  const c = new Client({ name: 'marbles-http-test', version: '0.0.0' })
  await c.connect(
    new StreamableHTTPClientTransport(
      new URL(url),
      token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {},
    ),
  )
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await c.callTool({ name, arguments: args })) as CallToolResult
    return {
      error: result.isError ? (result.content[0] as { text: string }).text : undefined,
      data: (result.structuredContent ?? {}) as Record<string, any>,
    }
  }
  return { client: c, call }
}

test.after.each(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null) continue
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }
  for (const dir of runtimes.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const INITIALIZE = { ...RAW_INITIALIZE, id: 1 }

test('no team token: a request without the local token gets 401; the token file is mode 0600 and named, never shown, at start', async () => {
  const root = await newProject('fs')
  const server = await serve(root)
  assert.is(statSync(server.tokenFile).mode & 0o777, 0o600)
  assert.is(statSync(join(server.tokenFile, '..')).mode & 0o777, 0o700)
  const secret = server.localToken()!
  assert.match(secret, /^fdl_[A-Za-z0-9_-]{32}$/)
  const refused = await rawPost(server.url, INITIALIZE)
  assert.is(refused.status, 401)
  assert.match(refused.body, `the local token in ${server.tokenFile}`)
  assert.is((await rawPost(server.url, INITIALIZE, { authorization: 'Bearer fdl_not-the-token' })).status, 401)
  assert.match(server.stderr(), `(the local token in ${server.tokenFile})`)
  assert.not.match(server.stderr(), secret)
  const c = await client(server.url, secret)
  assert.equal(
    (await c.client.listTools()).tools.map((t) => t.name),
    ['list_config', 'dispatch_workflow', 'dispatch_agent', 'get_run', 'cancel_run', 'signal_run'],
  )
  await c.client.close()
})

test('several clients at once; roles per tool (read: list_config, get_run; run: dispatch, cancel); tools/list filtered; 401 without a token; events name the token', async () => {
  const root = await newProject('fs')
  const server = await serve(root, { FOUNDRY_TOKENS: TOKENS })
  let refused: unknown
  await client(server.url).catch((error: unknown) => (refused = error))
  assert.ok(refused, 'no token: the client cannot connect')
  await client(server.url, 'run-secret-x').catch((error: unknown) => (refused = String(error)))
  assert.match(String(refused), /401|Unauthorized/i)

  const [reader, runner, second] = await Promise.all([
    client(server.url, 'read-secret-1'),
    client(server.url, 'run-secret-2'),
    client(server.url, 'run-secret-2'),
  ])
  assert.equal(
    (await reader.client.listTools()).tools.map((t) => t.name),
    ['list_config', 'get_run'],
  )
  assert.equal(
    (await runner.client.listTools()).tools.map((t) => t.name),
    ['list_config', 'dispatch_workflow', 'dispatch_agent', 'get_run', 'cancel_run', 'signal_run'],
  )
  for (const name of ['dispatch_workflow', 'dispatch_agent', 'cancel_run']) {
    const r = await reader.call(name, {})
    assert.match(r.error ?? '', `${name} refused: the token rita has role read; ${name} needs run`)
  }
  const acks = await Promise.all(
    [runner, second].map((c, i) => c.call('dispatch_workflow', { name: 'hello', input: { who: `ada${i}` } })),
  )
  for (const ack of acks) {
    assert.is(ack.error, undefined)
    const done = await until(
      async () => {
        const r = await reader.call('get_run', { runId: ack.data.runId })
        return r.data.status === 'completed' ? r : undefined
      },
      20_000,
      'the run to complete',
    )
    assert.match(JSON.stringify(done.data.output), /hello ada/)
  }
  await Promise.all([reader, runner, second].map((c) => c.client.close()))
  server.child.kill('SIGTERM')
  assert.is(await server.exited, 0)
  const events = findEvents(root)
  assert.ok(
    events.some(
      (e) =>
        e.kind === 'mcp.tool_call' &&
        e.data?.token === 'rex' &&
        e.data.tool === 'dispatch_workflow' &&
        e.data.status === 'ok',
    ),
    JSON.stringify(events.slice(-5)),
  )
  assert.ok(
    events.some(
      (e) =>
        e.kind === 'mcp.tool_call' &&
        e.data?.token === 'rita' &&
        e.data.tool === 'cancel_run' &&
        e.data.status === 'refused',
    ),
  )
  assert.not.match(JSON.stringify(events) + server.stderr(), /secret-/)
})

test("POST /runs/<runId>/signals/<name> resumes a waiting run: the run role only, the data checked against the wait's schema", async () => {
  const root = await newProject('fs')
  const server = await serve(root, { FOUNDRY_TOKENS: TOKENS }, join(HERE, 'fixtures', 'flow'))
  const runner = await client(server.url, 'run-secret-2')
  const { runId } = (await runner.call('dispatch_workflow', { name: 'approval', input: { dir: root } })).data
  const waiting = await until(
    async () => {
      const r = await runner.call('get_run', { runId })
      return r.data.status === 'waiting' ? r : undefined
    },
    20_000,
    'the run to wait',
  )
  assert.equal(waiting.data.waitingFor, { signal: 'approve' })
  const route = new URL(`/runs/${runId}/signals/approve`, server.url).href
  const asReader = await rawPost(route, { ok: true }, { authorization: 'Bearer read-secret-1' })
  assert.is(asReader.status, 403)
  assert.match(asReader.body, 'the token rita lacks the run role signals need')
  const bad = await rawPost(route, { ok: 'yes' }, { authorization: 'Bearer run-secret-2' })
  assert.is(bad.status, 400)
  assert.equal(JSON.parse(bad.body), { error: 'Invalid data of signal approve: ok must be boolean' })
  const unknown = await rawPost(
    new URL('/runs/run-nope/signals/approve', server.url).href,
    {},
    { authorization: 'Bearer run-secret-2' },
  )
  assert.is(unknown.status, 404)
  const sent = await rawPost(route, { ok: true }, { authorization: 'Bearer run-secret-2' })
  assert.is(sent.status, 200, sent.body)
  assert.is(JSON.parse(sent.body).runId, runId)
  const done = await until(
    async () => {
      const r = await runner.call('get_run', { runId })
      return r.data.status === 'completed' ? r : undefined
    },
    20_000,
    'the run to complete',
  )
  assert.equal(done.data.output, { ok: true })
  await runner.client.close()
})

test('a non-loopback address without a token is refused at start-up; a bad Host gets 403', async () => {
  const root = await newProject('fs')
  const runtimeDir = mkdtempSync(join(tmpdir(), 'marbles-runtime-'))
  runtimes.push(runtimeDir)
  const child = spawn(
    process.execPath,
    [BIN, '--root', root, '--source', AGENTS, 'mcp', '--http', '--host', '0.0.0.0', '--port', '0'],
    {
      cwd: HERE,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FOUNDRY_TOKENS: '', XDG_RUNTIME_DIR: runtimeDir },
    },
  )
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  assert.is(code, 1)
  assert.match(stderr, /--host 0\.0\.0\.0 is not a loopback address and no token is configured/)

  const server = await serve(root)
  const port = new URL(server.url).port
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: {
          host: `attacker.example:${port}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      },
      (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      },
    )
    req.on('error', reject)
    req.end('{}')
  })
  assert.is(status, 403)
})

test('SIGTERM with a run in flight: the server stops taking requests, cancels the run as part 1 reconciles, closes the engine, exits 0', async () => {
  const root = await newProject('fs')
  const server = await serve(root)
  const c = await client(server.url, server.localToken())
  const ack = await c.call('dispatch_workflow', { name: 'waits' })
  await until(
    async () => (await c.call('get_run', { runId: ack.data.runId })).data.status === 'running',
    10_000,
    'running',
  )
  const pending = c.call('get_run', { runId: ack.data.runId })
  server.child.kill('SIGTERM')
  await pending.catch(() => undefined)
  assert.is(await server.exited, 0)
  assert.match(server.stderr(), /SIGTERM: stopping/)
  assert.match(server.stderr(), /cancelling 1 run\(s\) still going/)
})

function findEvents(root: string): Array<{ kind: string; data?: Record<string, unknown> }> {
  const out: Array<{ kind: string; data?: Record<string, unknown> }> = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name))
      else if (entry.name === 'events.jsonl')
        for (const line of readFileSync(join(dir, entry.name), 'utf8').split('\n'))
          if (line.trim()) out.push(JSON.parse(line))
    }
  }
  walk(join(root, '.foundry'))
  return out
}

test.run()
