// foundry-hook against a team server (FOUNDRY_URL + FOUNDRY_TOKEN), and its fallback when the server is down or hangs.
import { spawnSync } from 'node:child_process'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openProject } from '@foundry/project'
import { cleanup, cli, tempDir, tempProject } from './helpers.js'
import { BIN } from './helpers.js'
import { startHttp, type HttpProcess } from './http-helpers.js'

const HOOK_BIN = fileURLToPath(new URL('../../hooks/dist/bin/foundry-hook.cjs', import.meta.url))
const PROMPT = 'the stripe webhook retries created a duplicate payment again'
const TEAM_FACT = 'Stripe webhook retries can record a payment twice'
const LOCAL_FACT = 'Stripe webhooks are verified with the signing secret'
const running: HttpProcess[] = []

async function projectWith(title: string): Promise<string> {
  const root = tempProject({})
  const project = await openProject({ root })
  await project.kernel.memory.write({
    type: 'risk',
    title,
    body: 'Stripe retries webhook deliveries for three days.\nWhy: at-least-once delivery.\nHow to apply: make the stripe webhook handler idempotent.',
  })
  await project.close()
  return root
}

function promptHook(cwd: string, env: Record<string, string>) {
  const input = {
    session_id: 's',
    transcript_path: join(cwd, 't.jsonl'),
    cwd,
    hook_event_name: 'UserPromptSubmit',
    prompt: PROMPT,
  }
  const { FOUNDRY_ROOT, CLAUDE_PROJECT_DIR, FOUNDRY_URL, FOUNDRY_TOKEN, ...inherited } = process.env
  const start = performance.now()
  const run = spawnSync(process.execPath, [HOOK_BIN, 'prompt-context'], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    env: { ...inherited, FOUNDRY_HOOK_SERVER: 'off', ...env },
    timeout: 20_000,
  })
  return { ...run, ms: performance.now() - start }
}

test.after.each(async () => {
  for (const server of running.splice(0)) if (server.child.exitCode === null) await server.stop()
})
test.after(cleanup)

test('foundry-hook prompt-context answered by a team server: its memory, not the local one; a wrong token falls back', async () => {
  const team = await projectWith(TEAM_FACT)
  const created = cli(['token', 'create', '--role', 'read', '--name', 'laptop', '--root', team])
  const secret = created.stdout.split('\n')[0]!
  const server = await startHttp(BIN, ['mcp', '--http', '--port', '0', '--root', team], { FOUNDRY_HOOK_SERVER: 'off' })
  running.push(server)
  const elsewhere = tempDir()
  const answered = promptHook(elsewhere, { FOUNDRY_URL: server.url, FOUNDRY_TOKEN: secret })
  assert.is(answered.status, 0, answered.stderr)
  assert.match(answered.stdout, TEAM_FACT)
  assert.is(answered.stderr, '')
  // Without /mcp too.
  assert.match(
    promptHook(elsewhere, { FOUNDRY_URL: server.url.replace(/\/mcp$/, ''), FOUNDRY_TOKEN: secret }).stdout,
    TEAM_FACT,
  )
  const local = await projectWith(LOCAL_FACT)
  const wrong = promptHook(local, { FOUNDRY_URL: server.url, FOUNDRY_TOKEN: 'fdy_wrong' })
  assert.is(wrong.status, 0)
  assert.match(wrong.stdout, LOCAL_FACT, 'answered from the local project')
  assert.match(wrong.stderr, /answered HTTP 401 \(check FOUNDRY_TOKEN\); answering locally/)
  assert.not.match(wrong.stderr, 'fdy_wrong')
})

test('the team server down or hanging: the local project answers, or nothing, within the timeout, exit 0', async () => {
  const local = await projectWith(LOCAL_FACT)
  // A port nobody listens on: refused at once.
  const probe = createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()))
  const port = (probe.address() as { port: number }).port
  await new Promise<void>((r) => probe.close(() => r()))
  const down = promptHook(local, { FOUNDRY_URL: `http://127.0.0.1:${port}`, FOUNDRY_TOKEN: 'x' })
  assert.is(down.status, 0)
  assert.match(down.stdout, LOCAL_FACT)
  assert.match(down.stderr, /cannot be reached \(ECONNREFUSED\); answering locally/)
  // A server that accepts and never answers: the hook waits FOUNDRY_HOOK_TIMEOUT_MS, no more.
  const hung = createServer(() => {})
  await new Promise<void>((r) => hung.listen(0, '127.0.0.1', () => r()))
  try {
    const url = `http://127.0.0.1:${(hung.address() as { port: number }).port}`
    const slow = promptHook(tempDir(), { FOUNDRY_URL: url, FOUNDRY_TOKEN: 'x', FOUNDRY_HOOK_TIMEOUT_MS: '300' })
    assert.is(slow.status, 0)
    assert.is(slow.stdout, '', 'no local project: silent')
    assert.match(slow.stderr, /did not answer within 300 ms; answering locally/)
    assert.ok(slow.ms < 5000, `${slow.ms} ms`)
  } finally {
    hung.close()
  }
})

test.run()
