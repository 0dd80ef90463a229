// No secret in any output: secrets are planted (team tokens, PostgreSQL passwords in the environment and
// in config.json, FOUNDRY_TOKEN, the local token), the bins' commands that could show them are run
// (doctor, config, token list, errors from bad and unreachable URLs, `foundry mcp --http`'s and
// `foundry ui`'s start-up text and request log, foundry-hook's warnings), every stdout and stderr is kept, and all of it is
// searched for every secret. No connection is made: the PostgreSQL URLs point at a closed port.
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { BIN, cleanup, cli, tempDir, tempProject } from './helpers.js'
import { httpClient, INITIALIZE, rawPost, startHttp } from './http-helpers.js'

const HOOK_BIN = fileURLToPath(new URL('../../hooks/dist/bin/foundry-hook.cjs', import.meta.url))
const planted = (label: string) => `${label}${randomBytes(9).toString('hex')}`
const SECRETS = {
  teamEnv: planted('tok-env-'),
  dbPassword: planted('pgpw-env-'),
  configPassword: planted('pgpw-file-'),
  badUrlPassword: planted('pgpw-bad-'),
  queuePassword: planted('pgpw-queue-'),
  hookToken: planted('hook-tok-'),
  wrongBearer: planted('wrong-bearer-'),
}
const ENV = {
  FOUNDRY_HOOK_SERVER: 'off',
  FOUNDRY_TOKENS: `ops:write:${SECRETS.teamEnv}`,
  FOUNDRY_DATABASE_URL: `postgres://foundry:${SECRETS.dbPassword}@127.0.0.1:1/foundry`,
  MARBLES_QUEUE_URL: `postgres://queue:${SECRETS.queuePassword}@127.0.0.1:1/queue`,
  FOUNDRY_TOKEN: SECRETS.hookToken,
}
const outputs: Array<{ what: string; text: string }> = []
const keep = (what: string, run: { stdout: string; stderr: string }) =>
  outputs.push({ what, text: `${run.stdout}\n${run.stderr}` })

test.after(cleanup)

test('the CLI: doctor, config, token list and the errors of bad or unreachable URLs, on folder and PostgreSQL projects', () => {
  const folder = tempProject()
  const created = cli(['token', 'create', '--role', 'read', '--name', 'rita', '--root', folder], { env: ENV })
  assert.is(created.code, 0, created.stderr)
  const fileToken = created.stdout.split('\n')[0]! // shown once, by design: the one output not searched
  Object.assign(SECRETS, { fileToken })
  for (const args of [
    ['doctor'],
    ['config'],
    ['token', 'list'],
    ['list'],
    ['--storage', 'postgres', 'list'],
    ['--debug', '--storage', 'postgres', 'list'],
  ])
    keep(`fs: ${args.join(' ')}`, cli([...args, '--root', folder], { env: ENV }))
  const postgres = tempProject({
    storage: { kind: 'postgres', url: `postgres://foundry:${SECRETS.configPassword}@127.0.0.1:1/foundry` },
  })
  for (const args of [['doctor'], ['config'], ['list'], ['search', 'anything'], ['--debug', 'list']])
    keep(`postgres (config url): ${args.join(' ')}`, cli([...args, '--root', postgres], { env: ENV }))
  const fromEnv = tempProject({ storage: { kind: 'postgres' } })
  const badUrl = { ...ENV, FOUNDRY_DATABASE_URL: `postgres://foundry:${SECRETS.badUrlPassword}@bad host:54x2/foundry` }
  for (const args of [['doctor'], ['config'], ['list'], ['--debug', 'list']])
    keep(`postgres (bad env url): ${args.join(' ')}`, cli([...args, '--root', fromEnv], { env: badUrl }))
  keep('postgres (unreachable env url): list', cli(['list', '--root', fromEnv], { env: ENV }))
  keep('init --storage postgres (unreachable)', cli(['init', '--storage', 'postgres'], { cwd: tempDir(), env: ENV }))
  keep('init --storage postgres (bad url)', cli(['init', '--storage', 'postgres'], { cwd: tempDir(), env: badUrl }))
  keep('mcp (stdio) on an unreachable database', cli(['mcp', '--root', postgres], { env: ENV }))
  keep('mcp --http on an unreachable database', cli(['mcp', '--http', '--port', '0', '--root', postgres], { env: ENV }))
  keep(
    'mcp --http with a malformed FOUNDRY_TOKENS',
    cli(['mcp', '--http', '--port', '0', '--root', folder], {
      env: { ...ENV, FOUNDRY_TOKENS: `bad name:read:${SECRETS.teamEnv},x:admin:${SECRETS.teamEnv}` },
    }),
  )
})

test('foundry mcp --http: its start-up text and its log through good, wrong and missing tokens, a tool call, and SIGTERM', async () => {
  const root = tempProject()
  const team = await startHttp(BIN, ['mcp', '--http', '--port', '0', '--root', root], ENV)
  await rawPost(team.url, INITIALIZE)
  await rawPost(team.url, INITIALIZE, { authorization: `Bearer ${SECRETS.wrongBearer}` })
  await rawPost(
    team.url,
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { authorization: `Bearer ${SECRETS.teamEnv}`, 'mcp-session-id': SECRETS.wrongBearer },
  )
  const client = await httpClient(team.url, SECRETS.teamEnv)
  await client.callTool({
    name: 'memory_write',
    arguments: { title: 'Secrets stay out of logs', body: 'Never print a token.', type: 'convention' },
  })
  await client.callTool({ name: 'memory_search', arguments: { query: SECRETS.wrongBearer } })
  await client.close()
  assert.is(await team.stop(), 0)
  keep('mcp --http with team tokens', { stdout: '', stderr: team.stderr() })
  const local = await startHttp(BIN, ['mcp', '--http', '--port', '0', '--root', tempProject()], {
    ...ENV,
    FOUNDRY_TOKENS: '',
  })
  const localToken = local.localToken()!
  Object.assign(SECRETS, { localToken })
  await rawPost(local.url, INITIALIZE)
  const mine = await httpClient(local.url, localToken)
  await mine.listTools()
  await mine.close()
  assert.is(await local.stop(), 0)
  keep('mcp --http with the local token', { stdout: '', stderr: local.stderr() })
})

test('foundry ui: its start-up text without team tokens (the local token) and with them', async () => {
  for (const env of [{ ...ENV, FOUNDRY_TOKENS: '' }, ENV]) {
    const runtime = tempDir()
    const child = spawn(process.execPath, [BIN, 'ui', '--port', '0', '--root', tempProject()], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...env, XDG_RUNTIME_DIR: runtime },
    })
    let stderr = ''
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString()
        if (/Ctrl-C to stop/.test(stderr) && (env.FOUNDRY_TOKENS !== '' || /local token/.test(stderr))) resolve()
      })
      void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)))
    })
    child.kill('SIGTERM')
    assert.is(await exited, 0, stderr)
    if (existsSync(join(runtime, 'foundry', 'http.token')))
      Object.assign(SECRETS, { uiLocalToken: readFileSync(join(runtime, 'foundry', 'http.token'), 'utf8').trim() })
    keep(`foundry ui (FOUNDRY_TOKENS ${env.FOUNDRY_TOKENS ? 'set' : 'empty'})`, { stdout: '', stderr })
  }
  assert.ok('uiLocalToken' in SECRETS, 'the local token was written')
})

test('foundry-hook: warnings about a team server that is down or refuses the token', () => {
  const cwd = tempDir()
  mkdirSync(join(cwd, '.foundry'))
  const input = JSON.stringify({
    session_id: 's',
    transcript_path: join(cwd, 't.jsonl'),
    cwd,
    hook_event_name: 'UserPromptSubmit',
    prompt: 'what about the payments webhook',
  })
  for (const url of ['http://127.0.0.1:1', 'not a url']) {
    const run = spawnSync(process.execPath, [HOOK_BIN, 'prompt-context'], {
      input,
      encoding: 'utf8',
      env: { ...process.env, ...ENV, FOUNDRY_URL: url },
      timeout: 20_000,
    })
    keep(`foundry-hook prompt-context (FOUNDRY_URL ${url})`, run)
  }
})

test('every output kept: no planted secret appears in any of them', () => {
  assert.ok(outputs.length >= 25, `${outputs.length} outputs`)
  assert.ok(
    outputs.some((o) => /ECONNREFUSED|cannot connect|connect/i.test(o.text)),
    'the unreachable-database paths were taken',
  )
  const hits: string[] = []
  for (const [name, secret] of Object.entries(SECRETS))
    for (const o of outputs)
      if (o.text.includes(secret as string)) hits.push(`${name} in "${o.what}": …${excerpt(o.text, secret as string)}…`)
  console.log(
    `  no-secrets: ${Object.keys(SECRETS).length} secrets planted, ${outputs.length} outputs searched, ${hits.length} hits`,
  )
  assert.equal(hits, [])
})

function excerpt(text: string, secret: string): string {
  const at = text.indexOf(secret)
  return text.slice(Math.max(0, at - 80), at + secret.length + 20).replace(/\s+/g, ' ')
}

test.run()
