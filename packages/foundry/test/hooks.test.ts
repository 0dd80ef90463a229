import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { hookSocketPath } from '@foundry/hooks'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { openProject } from '@foundry/project'
import { call, cleanup, connect, tempProject } from './helpers.js'

/** The built hook bin, run as Claude Code runs it. Build first (`pnpm --filter @foundry/hooks build`). */
const HOOK_BIN = fileURLToPath(new URL('../../hooks/dist/bin/foundry-hook.cjs', import.meta.url))
const PROMPT = 'the stripe webhook retries created a duplicate payment again'
const FACT = 'Stripe webhook retries can record a payment twice'

/** The hook sockets go in a temporary folder of this suite's own (servers, hooks and this process agree on it), not the shared one. */
const SCRATCH = mkdtempSync(join(tmpdir(), 'foundry-mcp-hooks-'))
const SAVED = { TMPDIR: process.env.TMPDIR, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR }

const hooks = suite('foundry mcp serves the hooks of its project')
hooks.before(() => {
  process.env.TMPDIR = SCRATCH
  delete process.env.XDG_RUNTIME_DIR
})
hooks.after(() => {
  cleanup()
  for (const [name, value] of Object.entries(SAVED)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  rmSync(SCRATCH, { recursive: true, force: true })
})

/** A project with a little memory; `.foundry/config.json` is written by the caller when needed. */
async function projectWithFacts(): Promise<string> {
  const root = tempProject({})
  const project = await openProject({ root })
  const facts: Array<[type: string, title: string, body: string]> = [
    [
      'decision',
      'Money is stored as integer minor units with a currency code',
      'Amounts are bigint minor units plus an ISO currency.\nWhy: float rounding produced one-penny mismatches.\nHow to apply: use the Money type for every amount.',
    ],
    [
      'risk',
      FACT,
      'Stripe retries webhooks for three days and the handler inserted a payment per delivery.\nWhy: the handler was not idempotent.\nHow to apply: upsert payments by PaymentIntent id.',
    ],
    [
      'convention',
      'Schema migrations are expand-then-contract',
      'Add columns nullable, backfill in a job, switch reads, drop old columns a release later.',
    ],
    [
      'constraint',
      'Production runs in eu-west-2 and data stays in the UK or EU',
      'Tenants are served from London and Frankfurt; backups replicate within the same jurisdiction.',
    ],
    [
      'glossary',
      'A clinic group is the paying customer that owns several clinics',
      'The tenant: it owns clinics, staff, stock and clients shared across its clinics.',
    ],
  ]
  for (const [type, title, body] of facts) await project.kernel.memory.write({ type, title, body })
  await project.close()
  return root
}

/** `foundry-hook prompt-context` with the UserPromptSubmit payload Claude Code sends, `cwd` the project. */
function promptHook(root: string, env: Record<string, string> = {}) {
  const input = {
    session_id: 'sess-mcp',
    transcript_path: join(root, 't.jsonl'),
    cwd: root,
    hook_event_name: 'UserPromptSubmit',
    prompt: PROMPT,
  }
  const { FOUNDRY_ROOT, CLAUDE_PROJECT_DIR, FOUNDRY_HOOK_SERVER, ...inherited } = process.env
  const run = spawnSync(process.execPath, [HOOK_BIN, 'prompt-context'], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    env: { ...inherited, ...env },
  })
  assert.is(run.status, 0, run.stderr)
  return run.stdout
}

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

hooks(
  'once the project is open, prompt-context is answered by foundry mcp; the socket goes when the client does',
  async () => {
    const root = await projectWithFacts()
    const socket = hookSocketPath(root)
    // The SDK passes the server a minimal environment: give it this process's temporary folder, where the hook looks.
    const conn = await connect(root, [], { TMPDIR: SCRATCH })
    try {
      await until(() => existsSync(socket), 'the hook socket')
      const alone = promptHook(root, { FOUNDRY_HOOK_SERVER: 'off' })
      assert.match(alone, new RegExp(`\\*\\*${FACT}\\*\\*`), 'in its own process the hook works')
      assert.is(promptHook(root), alone, 'served, the answer is the same')

      // Only a new process reads this configuration: under it nothing qualifies.
      writeFileSync(join(root, '.foundry', 'config.json'), JSON.stringify({ promptContext: { minScore: 50 } }))
      assert.is(promptHook(root, { FOUNDRY_HOOK_SERVER: 'off' }), '')
      assert.is(
        promptHook(root),
        alone,
        'the answer came from foundry mcp, which holds the project open with its configuration',
      )

      assert.ok(
        (await call(conn.client, 'memory_search', { query: 'stripe webhook' })).text.includes(FACT),
        'the MCP server serves on',
      )
      assert.not.match(conn.stderr(), /hook server/)
    } finally {
      await conn.close()
    }
    await until(() => !existsSync(socket), 'the socket to be removed')
    assert.is(promptHook(root), '', 'with the server gone the hook runs in its own process')
  },
)

hooks('FOUNDRY_HOOK_SERVER=off: foundry mcp serves no hooks', async () => {
  const root = await projectWithFacts()
  const tmp = mkdtempSync(join(SCRATCH, 'off-'))
  const conn = await connect(root, [], { TMPDIR: tmp, FOUNDRY_HOOK_SERVER: 'off' })
  try {
    await call(conn.client, 'memory_search', { query: 'stripe webhook' }) // the project is open: a hook server would start now
  } finally {
    await conn.close() // the server stops whatever it started before it exits
  }
  // The bin's compile cache (@foundry/project/cached-script) lives there too; it is no socket folder.
  assert.equal(
    readdirSync(tmp).filter((name) => !name.startsWith('foundry-compile-cache-')),
    [],
    'no socket folder was ever claimed',
  )
})

hooks('a hook server that cannot listen is one line on stderr; the MCP server works on', async () => {
  const root = await projectWithFacts()
  const nowhere = join(tempProject(), 'missing', 'tmp') // a temporary folder that does not exist
  const conn = await connect(root, [], { TMPDIR: nowhere })
  try {
    await until(() => /hook server/.test(conn.stderr()), 'the diagnostic line')
    assert.match(conn.stderr(), /^foundry: hook server not started \(hooks run in their own processes\): .+\n$/)
    assert.ok((await call(conn.client, 'memory_search', { query: 'stripe webhook' })).text.includes(FACT))
  } finally {
    await conn.close()
  }
})

hooks.run()
