// `foundry mcp --http` without team tokens is private to its user: it requires the local token it
// writes (mode 0600) in the per-user runtime folder, which local clients read. Through the built bins.
import { spawnSync } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { BIN, cleanup, tempDir, tempProject } from './helpers.js'
import { httpClient, INITIALIZE, rawPost, startHttp, type HttpProcess } from './http-helpers.js'

const HOOK_BIN = fileURLToPath(new URL('../../hooks/dist/bin/foundry-hook.cjs', import.meta.url))
const running: HttpProcess[] = []
const serve = async (root: string, env: Record<string, string | undefined> = {}) => {
  const server = await startHttp(BIN, ['mcp', '--http', '--port', '0', '--root', root], {
    FOUNDRY_HOOK_SERVER: 'off',
    FOUNDRY_TOKENS: undefined,
    ...env,
  })
  running.push(server)
  return server
}

test.after.each(async () => {
  for (const server of running.splice(0)) if (server.child.exitCode === null) await server.stop()
})
test.after(cleanup)

test('no team token: a request without the local token gets 401; the token file is mode 0600 and named, never shown, at start', async () => {
  const server = await serve(tempProject())
  const file = join(server.runtimeDir, 'foundry', 'http.token')
  assert.is(statSync(file).mode & 0o777, 0o600)
  assert.is(statSync(join(server.runtimeDir, 'foundry')).mode & 0o777, 0o700)
  const secret = server.localToken()!
  assert.match(secret, /^fdl_[A-Za-z0-9_-]{32}$/)
  const refused = await rawPost(server.url, INITIALIZE)
  assert.is(refused.status, 401)
  assert.match(refused.body, `the local token in ${file}`)
  assert.is((await rawPost(server.url, INITIALIZE, { authorization: 'Bearer fdl_not-the-token' })).status, 401)
  assert.match(server.stderr(), `(the local token in ${file})`)
  assert.match(server.stderr(), /web console at http:\/\/127\.0\.0\.1:\d+\/ui\/ \(enter the local token from /)
  assert.not.match(server.stderr(), secret)
  const client = await httpClient(server.url, secret)
  const written = (await client.callTool({
    name: 'memory_write',
    arguments: { title: 'Local writes still work', body: 'With the local token.', type: 'convention' },
  })) as CallToolResult
  assert.not.ok(written.isError, JSON.stringify(written.content))
  await client.close()
})

test('the local token is kept across restarts; the console under /ui/ opens and its API takes the token', async () => {
  const root = tempProject()
  const first = await serve(root)
  const secret = first.localToken()!
  await first.stop()
  const again = await serve(root, { XDG_RUNTIME_DIR: tempDir() })
  assert.is.not(again.localToken(), secret, 'another runtime folder, another token')
  const runtime = tempDir()
  const a = await serve(root, { XDG_RUNTIME_DIR: runtime })
  const kept = a.localToken()!
  await a.stop()
  const b = await serve(root, { XDG_RUNTIME_DIR: runtime })
  assert.is(b.localToken(), kept, 'the same user and folder: the same token, so clients keep working')
  const base = new URL('/ui/', b.url).href
  assert.is((await fetch(base)).status, 200, 'the page itself opens')
  assert.is((await fetch(`${base}api/facts`)).status, 401)
  assert.is((await fetch(`${base}api/facts`, { headers: { authorization: `Bearer ${kept}` } })).status, 200)
})

test('foundry-hook with a loopback FOUNDRY_URL and no FOUNDRY_TOKEN reads the local token', async () => {
  const root = tempProject()
  const server = await serve(root)
  const client = await httpClient(server.url, server.localToken())
  await client.callTool({
    name: 'memory_write',
    arguments: {
      type: 'risk',
      title: 'Stripe webhook retries can record a payment twice',
      body: 'Stripe retries webhook deliveries.\nWhy: at-least-once delivery.\nHow to apply: make the stripe webhook handler idempotent.',
    },
  })
  await client.close()
  const cwd = tempDir()
  const input = {
    session_id: 's',
    transcript_path: join(cwd, 't.jsonl'),
    cwd,
    hook_event_name: 'UserPromptSubmit',
    prompt: 'the stripe webhook retries created a duplicate payment',
  }
  const { FOUNDRY_ROOT, CLAUDE_PROJECT_DIR, FOUNDRY_TOKEN, ...inherited } = process.env
  const run = (runtime: string) =>
    spawnSync(process.execPath, [HOOK_BIN, 'prompt-context'], {
      input: JSON.stringify(input),
      encoding: 'utf8',
      env: { ...inherited, FOUNDRY_HOOK_SERVER: 'off', FOUNDRY_URL: server.url, XDG_RUNTIME_DIR: runtime },
      timeout: 20_000,
    })
  const answered = run(server.runtimeDir)
  assert.is(answered.status, 0, answered.stderr)
  assert.match(answered.stdout, 'Stripe webhook retries can record a payment twice')
  assert.is(answered.stderr, '')
  const stranger = run(tempDir()) // no token file there: refused, and the hook falls back
  assert.match(stranger.stderr, /answered HTTP 401/)
  assert.not.match(
    stranger.stderr + stranger.stdout,
    readFileSync(join(server.runtimeDir, 'foundry', 'http.token'), 'utf8').trim(),
  )
})

test('explicit team tokens keep working as before: no local token is written or accepted', async () => {
  const server = await serve(tempProject(), { FOUNDRY_TOKENS: 'ci:read:s3cret-one' })
  assert.is(server.localToken(), undefined)
  assert.is((await rawPost(server.url, INITIALIZE, { authorization: 'Bearer s3cret-one' })).status, 200)
  assert.match(server.stderr(), /\(1 token\(s\)\)/)
})

test.run()
