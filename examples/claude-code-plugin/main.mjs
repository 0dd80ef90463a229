// Checks this plugin the way Claude Code uses it: every hook hooks/hooks.json declares is run through a
// shell with ${CLAUDE_PLUGIN_ROOT} set, in a project folder, fed the JSON Claude Code sends for its
// event, and its output is asserted; the server .mcp.json names is started and answers `initialize`;
// the plugin's own agents and skills pass `foundry-validate-assets`. The project is a temporary folder,
// so the check leaves nothing behind. `node main.mjs <plugin-dir>` checks another copy of the plugin
// (the built one, dist-plugin/foundry, wherever it was copied), through the bins its own files name.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'

const plugin = resolve(process.argv[2] ?? import.meta.dirname)
const manifest = JSON.parse(readFileSync(join(plugin, '.claude-plugin', 'plugin.json'), 'utf8'))
const hooksFile = JSON.parse(readFileSync(join(plugin, 'hooks', 'hooks.json'), 'utf8'))
const mcpFile = JSON.parse(readFileSync(join(plugin, '.mcp.json'), 'utf8'))
// The foundry CLI is the bin the MCP server runs; foundry-validate-assets sits beside the hook bin.
// The script is the first argument that is not a Node option (the server's heap flags come before it).
const foundry = expand(mcpFile.mcpServers.foundry.args.find((arg) => !arg.startsWith('--')))
const hookBin = /"([^"]*foundry-hook\.cjs)"/.exec(Object.values(hooksFile.hooks)[0][0].hooks[0].command)[1]
const validateAssets = join(dirname(expand(hookBin)), 'foundry-validate-assets.js')
assert.equal(manifest.name, 'foundry')

const project = mkdtempSync(join(tmpdir(), 'foundry-plugin-'))
const env = { ...process.env, CLAUDE_PLUGIN_ROOT: plugin, CLAUDE_PROJECT_DIR: project, FOUNDRY_ROOT: '' }
try {
  // A project with a little memory, written with the foundry CLI the plugin ships.
  cli('init')
  const facts = [
    [
      'decision',
      'Money is stored as integer minor units with a currency code',
      'Amounts are bigint minor units plus an ISO currency.\nWhy: float rounding produced one-penny mismatches.\nHow to apply: use the Money type for every amount.',
    ],
    [
      'risk',
      'Stripe webhook retries can record a payment twice',
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
  for (const [type, title, body] of facts) cli('write', '--type', type, '--title', title, '--body', body)
  mkdirSync(join(project, '.foundry', 'runbooks'), { recursive: true })
  writeFileSync(
    join(project, '.foundry', 'runbooks', 'release-to-production.md'),
    '---\ntitle: Release to production\ntrigger: release to production, deploy to production\n---\n1. Check the change window.\n2. Promote the staging digest.\n',
  )

  // Every hook the plugin declares, with the payloads Claude Code sends.
  const common = (event) => ({
    session_id: 'sess-plugin',
    transcript_path: join(project, 'transcript.jsonl'),
    cwd: project,
    hook_event_name: event,
    permission_mode: 'default',
  })
  const subagent = (message, extra = {}) => ({
    ...common('SubagentStop'),
    stop_hook_active: false,
    agent_id: 'c0ffee',
    agent_type: 'code-reviewer',
    agent_transcript_path: join(project, 'agent-c0ffee.jsonl'),
    last_assistant_message: message,
    ...extra,
  })
  const long =
    'Finding: the payment webhook handler inserts one row per delivery, so retries duplicate payments. '.repeat(70)
  const cases = {
    SessionStart: [
      [
        { ...common('SessionStart'), source: 'startup' },
        (out) =>
          assert.equal(
            out.json.hookSpecificOutput.additionalContext,
            readFileSync(join(project, '.foundry', 'memory', 'INDEX.md'), 'utf8'),
          ),
      ],
    ],
    UserPromptSubmit: [
      [
        { ...common('UserPromptSubmit'), prompt: 'the stripe webhook retries created a duplicate payment again' },
        (out) =>
          assert.match(
            out.json.hookSpecificOutput.additionalContext,
            /\*\*Stripe webhook retries can record a payment twice\*\*/,
          ),
      ],
      [
        { ...common('UserPromptSubmit'), prompt: 'write a haiku about autumn leaves' },
        (out) => assert.equal(out.stdout, '', 'an unrelated prompt injects nothing'),
      ],
      [
        { ...common('UserPromptSubmit'), prompt: 'ok, deploy to production' },
        (out) => assert.match(out.json.hookSpecificOutput.additionalContext, /Foundry runbook "release-to-production"/),
      ],
    ],
    SubagentStop: [
      [
        subagent('Reviewed: 2 findings in .foundry/blackboard/review/code-reviewer.json; no blocking question.'),
        (out) => assert.equal(out.stdout, ''),
      ],
      [
        subagent(long),
        (out) => {
          assert.equal(out.json.decision, 'block')
          // <type>-<id>-<12 hex of a hash of the return>.json: one file a return
          const saved =
            /saved unchanged to \.foundry\/blackboard\/firewall\/(code-reviewer-c0ffee-[0-9a-f]{12}\.json)/.exec(
              out.json.reason,
            )
          assert.ok(saved, out.json.reason)
          assert.equal(
            JSON.parse(readFileSync(join(project, '.foundry', 'blackboard', 'firewall', saved[1]), 'utf8')).text,
            long,
          )
        },
      ],
      [
        subagent(long, { stop_hook_active: true }),
        (out) => assert.equal(out.stdout, '', 'never blocks twice in a row'),
      ],
    ],
    PreCompact: [
      [
        { ...common('PreCompact'), trigger: 'auto', custom_instructions: '' },
        (out) => assert.match(out.stdout, /^Foundry memory holds 5 facts\./),
      ],
    ],
    SessionEnd: [[{ ...common('SessionEnd'), reason: 'prompt_input_exit' }, (out) => assert.equal(out.stdout, '')]],
  }
  for (const required of ['SessionStart', 'UserPromptSubmit', 'SubagentStop', 'PreCompact'])
    assert.ok(hooksFile.hooks[required], `hooks.json wires ${required}`)
  let ran = 0
  for (const [event, groups] of Object.entries(hooksFile.hooks)) {
    assert.ok(cases[event], `a check for every declared event (${event})`)
    for (const { hooks } of groups) {
      for (const hook of hooks) {
        assert.equal(hook.type, 'command')
        for (const [input, expect] of cases[event]) {
          const out = runCommand(hook.command, input)
          assert.equal(out.code, 0, `${event}: exit ${out.code}: ${out.stderr}`)
          expect(out)
          ran++
        }
      }
    }
  }
  const kinds = readFileSync(join(project, '.foundry', 'metrics', 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).kind)
  for (const kind of ['memory_search', 'subagent_return', 'gate_blocked', 'session_end'])
    assert.ok(kinds.includes(kind), `${kind} is recorded`)
  console.log(
    `hooks.json: ${Object.keys(hooksFile.hooks).length} events, ${ran} hook runs, outputs as Claude Code expects them`,
  )

  // The MCP server .mcp.json declares answers `initialize`.
  const server = mcpFile.mcpServers.foundry
  const info = await initialize(server.command === 'node' ? process.execPath : server.command, server.args.map(expand))
  assert.equal(info.serverInfo.name, 'foundry')
  console.log(
    `.mcp.json: "${server.command} ${server.args.join(' ')}" answers initialize as ${info.serverInfo.name} ${info.serverInfo.version}`,
  )

  // The plugin's own assets keep the authoring contract.
  const assets = spawnSync(process.execPath, [validateAssets, plugin], { encoding: 'utf8' })
  assert.equal(assets.status, 0, assets.stdout + assets.stderr)
  console.log(`foundry-validate-assets: ${assets.stdout.trim()}`)
  console.log('claude-code-plugin: ok')
} finally {
  rmSync(project, { recursive: true, force: true })
}

function cli(...args) {
  const run = spawnSync(process.execPath, [foundry, ...args], { cwd: project, env, encoding: 'utf8' })
  assert.equal(run.status, 0, `foundry ${args[0]}: ${run.stderr}`)
  return run.stdout
}

/** `${CLAUDE_PLUGIN_ROOT}` replaced, as Claude Code does in hooks.json and .mcp.json. */
function expand(text) {
  return text.replaceAll('${CLAUDE_PLUGIN_ROOT}', plugin)
}

/** A hook command as Claude Code runs it: through a shell, in the project, the event JSON on stdin. */
function runCommand(command, input) {
  const run = spawnSync('/bin/sh', ['-c', command], {
    cwd: project,
    env,
    input: JSON.stringify(input),
    encoding: 'utf8',
  })
  let json
  try {
    json = run.stdout.trim() ? JSON.parse(run.stdout) : undefined
  } catch {
    json = undefined
  }
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, json }
}

/** Start the server, send `initialize` over stdio, and return its result. */
function initialize(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: project, env, stdio: ['pipe', 'pipe', 'inherit'] })
    let buffer = ''
    const timer = setTimeout(() => (child.kill(), reject(new Error('no answer to initialize within 20 s'))), 20_000)
    child.stdout.on('data', (chunk) => {
      buffer += chunk
      const end = buffer.indexOf('\n')
      if (end < 0) return
      clearTimeout(timer)
      child.stdin.end()
      child.kill()
      const message = JSON.parse(buffer.slice(0, end))
      message.result ? resolve(message.result) : reject(new Error(JSON.stringify(message.error)))
    })
    child.on('error', reject)
    const request = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'plugin-check', version: '1.0.0' },
      },
    }
    child.stdin.write(`${JSON.stringify(request)}\n`)
  })
}
