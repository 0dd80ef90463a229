import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
// @foundry/adapter-postgres is not a dependency of this package (the lockfile is shared); its build is.
import { createDatabase, startTestDatabase, type TestDatabase } from '@foundry/adapter-postgres/testing'
import { BIN, call, cleanup, cli, connect, finding, flyway, tempDir, tempProject, type CliResult } from './helpers.js'
import { httpClient, startHttp } from './http-helpers.js'

// The same CLI and `foundry mcp` on a project whose storage is PostgreSQL (a real embedded server),
// and `foundry export` / `foundry import` moving a project between fs, SQLite and Postgres losslessly.

const test = suite<{ server: TestDatabase; outputs: string[] }>('storage "postgres" through the CLI and foundry mcp')
test.before(async (ctx) => {
  ctx.server = await startTestDatabase()
  ctx.outputs = []
})
test.after(async (ctx) => {
  await ctx.server?.stop()
  cleanup()
})

/** Every path below `dir` with its content, relative. */
function files(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${prefix}${entry.name}`
    if (entry.isDirectory()) Object.assign(out, files(join(dir, entry.name), `${path}/`))
    else out[path] = readFileSync(join(dir, entry.name), 'utf8')
  }
  return out
}

/** True when every line of `part` appears in `whole`, in the same order. */
function inOrder(part: string[], whole: string[]): boolean {
  let at = 0
  for (const line of whole) if (at < part.length && line === part[at]) at++
  return at === part.length
}

test('export → import → export is identical across fs, SQLite and Postgres (fs → pg → sqlite → pg → fs)', async ({
  server,
  outputs,
}) => {
  const run = (args: string[], cwd: string, env: Record<string, string> = {}): CliResult => {
    const result = cli(args, { cwd, env })
    outputs.push(result.stdout, result.stderr)
    assert.is(result.code, 0, `foundry ${args.join(' ')}: ${result.stderr}`)
    return result
  }
  // The source: facts (a superseded one, tags, scopes, expiry), runbooks, a contract, an artifact, events.
  const source = tempProject()
  const write = (path: string, text: string) => {
    mkdirSync(join(source, '.foundry', path, '..'), { recursive: true })
    writeFileSync(join(source, '.foundry', path), text)
  }
  write(
    'runbooks/deploy-production.md',
    '---\ntitle: Deploy to production\ntrigger: deploy, release to prod\n---\n\n1. Tag the release.\n2. Run `make deploy`.\n',
  )
  write(
    'contracts/adr.v1.json',
    JSON.stringify({ type: 'object', required: ['decision'], properties: { decision: { type: 'string' } } }),
  )
  run(['init'], source)
  run(
    [
      'write',
      '--title',
      flyway.title,
      '--body',
      flyway.body,
      '--type',
      'decision',
      '--confidence',
      'high',
      '--source',
      'adr-0007',
      '--tags',
      'db,migrations',
    ],
    source,
  )
  run(
    [
      'write',
      '--type',
      'convention',
      '--title',
      'API timeout is 30 seconds',
      '--body',
      'Agreed in review.',
      '--scope',
      'module:gateway',
    ],
    source,
  )
  run(
    [
      'write',
      '--type',
      'convention',
      '--title',
      'API timeout is 60 seconds',
      '--body',
      'Agreed again: ünïcödé ✓ "quotes".',
      '--scope',
      'module:gateway',
      '--expires',
      '2099-01-01',
    ],
    source,
  )
  writeFileSync(join(source, 'finding.json'), JSON.stringify(finding))
  run(['blackboard', 'write', 'audit', 'appsec-reviewer', 'finding.v1', 'finding.json'], source)

  const hops: Array<{ storage: 'fs' | 'sqlite' | 'postgres' }> = [
    { storage: 'postgres' },
    { storage: 'sqlite' },
    { storage: 'postgres' },
    { storage: 'fs' },
  ]
  let exported = tempDir()
  run(['export', exported], source)
  const first = files(join(exported, '.foundry'))
  assert.ok(
    Object.keys(first).some((p) => p.startsWith('blackboard/')),
    `the artifact is exported: ${Object.keys(first).join(', ')}`,
  )
  for (const hop of hops) {
    const root = tempDir()
    const env: Record<string, string> =
      hop.storage === 'postgres' ? { FOUNDRY_DATABASE_URL: await createDatabase(server.url) } : {}
    run(['init', '--storage', hop.storage], root, env)
    run(['import', exported], root, env)
    const next = tempDir()
    run(['export', next], root, env)
    const before = files(join(exported, '.foundry'))
    const after = files(join(next, '.foundry'))
    // init and import record their own events (memory_index) in the project: every event carried over, in order, is the contract.
    const { 'metrics/events.jsonl': eventsBefore = '', ...contentBefore } = before
    const { 'metrics/events.jsonl': eventsAfter = '', ...contentAfter } = after
    assert.equal(contentAfter, contentBefore, `${hop.storage}: every record identical, byte for byte`)
    const lines = (text: string) => text.split('\n').filter(Boolean)
    assert.ok(inOrder(lines(eventsBefore), lines(eventsAfter)), `${hop.storage}: every event carried, in order`)
    exported = next
  }
  assert.equal(
    Object.fromEntries(Object.entries(files(join(exported, '.foundry'))).filter(([p]) => p !== 'metrics/events.jsonl')),
    Object.fromEntries(Object.entries(first).filter(([p]) => p !== 'metrics/events.jsonl')),
    'after four hops, the records are those of the first export',
  )
})

test('the same CLI works unchanged on a Postgres project', async ({ server, outputs }) => {
  const root = tempDir()
  const env = { FOUNDRY_DATABASE_URL: await createDatabase(server.url) }
  const run = (...args: string[]) => {
    const result = cli(args, { cwd: root, env })
    outputs.push(result.stdout, result.stderr)
    return result
  }
  const init = run('init', '--storage', 'postgres')
  assert.is(init.code, 0, init.stderr)
  assert.match(init.stdout, /\(storage postgres\)/)
  assert.equal(
    JSON.parse(readFileSync(join(root, '.foundry', 'config.json'), 'utf8')),
    { storage: { kind: 'postgres' } },
    'no URL (nor password) written to the file',
  )
  assert.is(run('write', '--title', flyway.title, '--body', flyway.body, '--type', 'decision').code, 0)
  assert.is(run('write', '--type', 'convention', '--title', 'API timeout is 30 seconds', '--body', 'Agreed.').code, 0)
  const superseding = run('write', '--type', 'convention', '--title', 'API timeout is 60 seconds', '--body', 'Raised.')
  assert.match(superseding.stdout, /fact-0003/)
  assert.match(run('list').stdout, /^fact-0001 · decision/m)
  assert.match(run('search', 'flyway').stdout, /Flyway, not Liquibase/)
  assert.match(run('show', 'fact-0002').stdout, /superseded/)
  assert.is(run('forget', 'fact-0001', '--reason', 'wrong').code, 0)
  assert.match(run('list', '--status', 'forgotten').stdout, /fact-0001/)
  const doctor = run('doctor')
  assert.is(doctor.code, 0, doctor.stdout + doctor.stderr)
  assert.match(doctor.stdout, /healthy: .* \(storage postgres\)/)

  const missing = cli(['list'], { cwd: root })
  assert.is(missing.code, 1)
  assert.match(missing.stderr, /^error: storage "postgres" needs a database URL: set FOUNDRY_DATABASE_URL=/)
  const wrong = new URL(env.FOUNDRY_DATABASE_URL)
  wrong.password = 'not-the-password-0815'
  const refused = cli(['list'], { cwd: root, env: { FOUNDRY_DATABASE_URL: wrong.toString() } })
  assert.is(refused.code, 1)
  assert.match(
    refused.stderr,
    /^error: postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/\w+: the server refused the credentials/,
  )
  assert.not.match(refused.stderr, 'not-the-password-0815')
  assert.is(refused.stderr.split('\n').filter(Boolean).length, 1, 'one line, no stack trace')
})

test('foundry mcp over stdio (the SDK client) works unchanged on a Postgres project', async ({ server, outputs }) => {
  const root = tempDir()
  const env = { FOUNDRY_DATABASE_URL: await createDatabase(server.url) }
  assert.is(cli(['init', '--storage', 'postgres'], { cwd: root, env }).code, 0)
  const conn = await connect(root, [], env)
  try {
    const { tools } = await conn.client.listTools()
    assert.ok(tools.some((t) => t.name === 'memory_write') && tools.some((t) => t.name === 'memory_search'))
    const written = await call(conn.client, 'memory_write', flyway)
    assert.not.ok(written.isError, written.text)
    assert.is(written.structured?.id, 'fact-0001')
    const found = await call(conn.client, 'memory_search', { query: 'liquibase' })
    assert.not.ok(found.isError, found.text)
    assert.match(found.text, /fact-0001/)
    // A write by another process (the CLI) is seen by the running server.
    assert.is(
      cli(['write', '--type', 'convention', '--title', 'Queues are Kafka topics', '--body', 'Agreed.'], {
        cwd: root,
        env,
      }).code,
      0,
    )
    const again = await call(conn.client, 'memory_search', { query: 'kafka' })
    assert.match(again.text, /fact-0002/)
  } finally {
    outputs.push(conn.stderr())
    await conn.close()
  }
})

test('foundry mcp --http (Streamable HTTP, the SDK client) works unchanged on a Postgres project', async ({
  server,
  outputs,
}) => {
  const root = tempDir()
  const env = { FOUNDRY_DATABASE_URL: await createDatabase(server.url) }
  assert.is(cli(['init', '--storage', 'postgres'], { cwd: root, env }).code, 0)
  const http = await startHttp(BIN, ['mcp', '--http', '--port', '0', '--root', root], {
    ...env,
    FOUNDRY_HOOK_SERVER: 'off',
    FOUNDRY_TOKENS: undefined,
  })
  try {
    const client = await httpClient(http.url, http.localToken())
    const written = await call(client, 'memory_write', flyway)
    assert.not.ok(written.isError, written.text)
    assert.match((await call(client, 'memory_search', { query: 'liquibase' })).text, /fact-0001/)
    await client.close()
  } finally {
    assert.is(await http.stop(), 0, 'a clean exit on SIGTERM')
    outputs.push(http.stderr())
  }
})

test('the hooks work unchanged on a Postgres project (prompt-context in its own process)', async ({
  server,
  outputs,
}) => {
  const root = tempDir()
  const env = { FOUNDRY_DATABASE_URL: await createDatabase(server.url) }
  assert.is(cli(['init', '--storage', 'postgres'], { cwd: root, env }).code, 0)
  const fact = 'Stripe webhook retries can record a payment twice'
  const written = cli(
    [
      'write',
      '--type',
      'risk',
      '--title',
      fact,
      '--body',
      'Stripe retries webhooks for three days.\nWhy: the handler was not idempotent.\nHow to apply: upsert payments by PaymentIntent id.',
    ],
    { cwd: root, env },
  )
  assert.is(written.code, 0, written.stderr)
  const hookBin = fileURLToPath(new URL('../../hooks/dist/bin/foundry-hook.cjs', import.meta.url))
  const input = {
    session_id: 's',
    transcript_path: join(root, 't.jsonl'),
    cwd: root,
    hook_event_name: 'UserPromptSubmit',
    prompt: 'the stripe webhook retries created a duplicate payment again',
  }
  const { FOUNDRY_ROOT: _r, CLAUDE_PROJECT_DIR: _c, ...inherited } = process.env
  const run = spawnSync(process.execPath, [hookBin, 'prompt-context'], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    env: { ...inherited, ...env, FOUNDRY_HOOK_SERVER: 'off' },
  })
  outputs.push(run.stdout, run.stderr)
  assert.is(run.status, 0, run.stderr)
  assert.match(run.stdout, fact)
})

test('no output of any command above carries the password', ({ server, outputs }) => {
  const password = new URL(server.url).password
  assert.ok(password.length >= 8 && outputs.length > 10)
  for (const text of outputs) assert.not.ok(text.includes(password), `the password leaked into: ${text.slice(0, 200)}`)
  assert.ok(
    outputs.some((text) => text.includes('***@127.0.0.1')),
    'the URL is printed, redacted',
  )
})

test.run()
