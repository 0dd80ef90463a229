import { spawn } from 'node:child_process'
import { cpSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { BIN, cleanup, cli, tempDir } from './helpers.js'
import { startHttp } from './http-helpers.js'

/*
 * foundry ingest, foundry ui, the console under /ui/ of a team server, and what foundry tokens says
 * of a small project: through the real bin.
 */

const test = suite('foundry ingest, foundry ui, /ui/ and the break-even')
test.after(cleanup)

const FIXTURE = new URL('../../ingest/test/fixtures/project', import.meta.url).pathname

function project(): string {
  const root = tempDir()
  cpSync(FIXTURE, root, { recursive: true })
  assert.is(cli(['init'], { cwd: root }).code, 0)
  return root
}

test('ingest: a dry run writes nothing, a run writes the facts and the chain, a second run nothing; a missing path is one line, exit 1', () => {
  const root = project()
  const dry = cli(['ingest', '.', '--dry-run'], { cwd: root })
  assert.is(dry.code, 0, dry.stderr)
  assert.match(dry.stdout, /Dry run: would write 14 facts from 8 files \(1 supersede link, 0 unchanged\)\./)
  assert.match(cli(['list'], { cwd: root }).stdout, /^(No facts|)/)
  assert.not.match(cli(['list'], { cwd: root }).stdout, /fact-0001/)

  const run = cli(['ingest', '.'], { cwd: root })
  assert.is(run.code, 0, run.stderr)
  assert.match(
    run.stdout,
    /docs\/adr\/ADR-4\.md:1 created: fact-\d+ \(supersedes fact-\d+\) "Use Flyway for database migrations"/,
  )
  assert.match(run.stdout, /Wrote 14 facts from 8 files \(1 supersede link, 0 unchanged\)\./)
  assert.match(
    cli(['search', 'which tool runs database migrations'], { cwd: root }).stdout,
    /Use Flyway for database migrations/,
  )
  assert.match(
    cli(['ingest', '.'], { cwd: root }).stdout,
    /Wrote 0 facts from 8 files \(0 supersede links, 14 unchanged\)\./,
  )

  const missing = cli(['ingest', 'nowhere'], { cwd: root })
  assert.is(missing.code, 1)
  assert.match(missing.stderr, /^error: .*nowhere does not exist/)
})

test('tokens: a small project sees the MCP tool list in the index-first cost and the break-even fact count', () => {
  const root = project()
  const tokens = cli(['tokens'], { cwd: root })
  assert.is(tokens.code, 0, tokens.stderr)
  assert.match(tokens.stdout, /index-first costs +~\d+ tokens per session \(the index ~\d+ \+ the MCP tool list ~\d+\)/)
  assert.match(tokens.stdout, /saving +none yet/)
  assert.match(tokens.stdout, /break-even +at about \d+ facts of this size \(now 0\)/)
})

test('foundry ui serves the console for the project until SIGTERM', async () => {
  const root = project()
  assert.is(cli(['ingest', 'docs/adr'], { cwd: root }).code, 0)
  const runtime = tempDir() // the user's private runtime folder, where the local token is written
  const child = spawn(process.execPath, [BIN, 'ui', '--port', '0'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, XDG_RUNTIME_DIR: runtime, FOUNDRY_TOKENS: '' },
  })
  let stderr = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString()
        const match = /foundry console: (\S+)/.exec(stderr)
        if (match && stderr.includes('enter the local token')) resolve(match[1]!)
      })
      void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)))
    })
    const page = await fetch(url)
    assert.is(page.status, 200)
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'/)
    assert.match(await page.text(), /<html/)
    assert.is(
      (await fetch(`${url}api/facts?q=migrations`)).status,
      401,
      'without team tokens, the API needs the local token',
    )
    const file = join(runtime, 'foundry', 'http.token')
    assert.match(stderr, `enter the local token from ${file}`)
    const secret = readFileSync(file, 'utf8').trim()
    assert.not.match(stderr, secret)
    const facts = (await (
      await fetch(`${url}api/facts?q=migrations`, { headers: { authorization: `Bearer ${secret}` } })
    ).json()) as unknown
    assert.match(JSON.stringify(facts), /Use Flyway for database migrations/)
  } finally {
    child.kill('SIGTERM')
  }
  assert.is(await exited, 0, stderr)
})

test("foundry mcp --http serves the console under /ui/, behind the server's tokens", async () => {
  const root = project()
  assert.is(cli(['ingest', 'docs/adr'], { cwd: root }).code, 0)
  const created = cli(['token', 'create', '--role', 'read', '--name', 'viewer', '--root', root])
  assert.is(created.code, 0, created.stderr)
  const secret = created.stdout.split('\n')[0]!
  const server = await startHttp(BIN, ['mcp', '--http', '--port', '0', '--root', root], {
    FOUNDRY_HOOK_SERVER: 'off',
    FOUNDRY_TOKENS: undefined,
  })
  try {
    const base = server.url.replace(/\/mcp$/, '/ui/')
    const page = await fetch(base)
    assert.is(page.status, 200, 'the page loads without a token')
    assert.match(await page.text(), /<html/)
    assert.is((await fetch(`${base}api/facts`)).status, 401, 'its API needs a token')
    const answer = await fetch(`${base}api/facts?q=migrations`, { headers: { authorization: `Bearer ${secret}` } })
    assert.is(answer.status, 200)
    assert.match(await answer.text(), /Use Flyway for database migrations/)
    const forget = await fetch(`${base}api/facts/fact-0001/forget`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'testing' }),
    })
    assert.is(forget.status, 403, 'a read token cannot forget')
    assert.is((await fetch(server.url, { method: 'POST' })).status, 401, 'MCP itself still needs the token')
  } finally {
    await server.stop()
  }
})

test.run()
