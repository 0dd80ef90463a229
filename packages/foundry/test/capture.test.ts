import { spawn, spawnSync } from 'node:child_process'
import { appendFileSync, existsSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openProject } from '@foundry/project'
import { cleanup, cli, tempDir } from './helpers.js'

/** The `foundry-hook` bin @foundry/cli installs; the fake `claude` the Marbles tests use (Claude Code's stream-json format). */
const HOOK = fileURLToPath(new URL('../bin/foundry-hook.cjs', import.meta.url))
const FAKE_CLI = fileURLToPath(new URL('../../marbles/test/fixtures/bin', import.meta.url))
const MARBLES = fileURLToPath(new URL('../node_modules/@foundry/marbles/dist/bin/marbles.js', import.meta.url))
const SESSION = '5b7c1f0e-2a44-4e2b-9d1c-3f2a9c8e7d10'

const proposals = [
  {
    title: 'Money is stored in integer cents',
    body: 'Never floats: rounding drifted in reports.',
    type: 'convention',
    confidence: 'high',
  },
  { title: 'Invoices are numbered per month', body: 'INV-2026-01-0001.', type: 'convention' },
  {
    title: 'Refunds need 2 approvals',
    body: 'Why: fraud.\nHow to apply: ask finance before refunding.',
    type: 'decision',
  },
]

/**
 * One exchange of a Claude Code transcript as it writes them (JSONL): the user's message, the
 * assistant's text and a tool call, the tool's result. The fake `claude` answers what the user's
 * message holds between ANSWER<< and >>ANSWER, so the distill agent returns `answer`.
 */
function exchange(root: string, n: number, said: string, answer: object): string {
  const base = {
    sessionId: SESSION,
    cwd: root,
    version: '2.1.3',
    gitBranch: 'main',
    userType: 'external',
    isSidechain: false,
  }
  const lines = [
    {
      ...base,
      parentUuid: n ? `a${n - 1}` : null,
      uuid: `u${n}`,
      type: 'user',
      timestamp: '2026-12-01T10:00:00.000Z',
      message: { role: 'user', content: `${said} ANSWER<<${JSON.stringify(answer)}>>ANSWER` },
    },
    {
      ...base,
      parentUuid: `u${n}`,
      uuid: `t${n}`,
      type: 'assistant',
      timestamp: '2026-12-01T10:00:05.000Z',
      requestId: `req_${n}`,
      message: {
        id: `msg_${n}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [
          { type: 'text', text: 'Agreed; checking the code.' },
          { type: 'tool_use', id: `toolu_${n}`, name: 'Read', input: { file_path: 'src/money.ts' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 900, output_tokens: 40 },
      },
    },
    {
      ...base,
      parentUuid: `t${n}`,
      uuid: `r${n}`,
      type: 'user',
      timestamp: '2026-12-01T10:00:06.000Z',
      message: {
        role: 'user',
        content: [{ tool_use_id: `toolu_${n}`, type: 'tool_result', content: 'export type Cents = number' }],
      },
      toolUseResult: { type: 'text' },
    },
    {
      ...base,
      parentUuid: `r${n}`,
      uuid: `a${n}`,
      type: 'assistant',
      timestamp: '2026-12-01T10:00:09.000Z',
      requestId: `req_${n}b`,
      message: {
        id: `msg_${n}b`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'Done.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 950, output_tokens: 5 },
      },
    },
  ]
  return lines.map((line) => `${JSON.stringify(line)}\n`).join('')
}

/** `foundry-hook <name>` with the payload Claude Code sends; returns at once (the capture runs detached). */
function hook(name: 'precompact' | 'session-end', root: string, payload: object) {
  const { FOUNDRY_ROOT, CLAUDE_PROJECT_DIR, FOUNDRY_HOOK_SERVER, ...inherited } = process.env
  const env = { ...inherited, FOUNDRY_HOOK_SERVER: 'off', PATH: `${FAKE_CLI}${delimiter}${process.env.PATH}` }
  return spawnSync(process.execPath, [HOOK, name], { cwd: root, input: JSON.stringify(payload), encoding: 'utf8', env })
}

/** The project's marbles runs named `memory.distill`, read from its storage. */
async function distillRuns(root: string): Promise<Array<{ id: string; status: string }>> {
  const project = await openProject({ root })
  try {
    const runs = (await project.storage.list('marbles.runs')) as Array<{ id: string; name: string; status: string }>
    return runs.filter((r) => r.name === 'memory.distill').map(({ id, status }) => ({ id, status }))
  } finally {
    await project.close()
  }
}

/** Poll `check` until it holds (a generous bound: the machine may be busy). */
async function until<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 1200; i++) {
    const value = await read()
    if (check(value)) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}

test.after(cleanup)

test('capture: PreCompact starts a detached distill run whose proposals wait for review; foundry review accepts, rejects, edits; a contract-breaking answer writes nothing', async () => {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  writeFileSync(
    join(root, '.foundry', 'config.json'),
    JSON.stringify({ storage: { kind: 'fs' }, capture: { enabled: true } }),
  )
  const transcript = join(root, 'session.jsonl')
  writeFileSync(transcript, exchange(root, 0, 'We settled the money rules.', { facts: proposals }))

  const compact = hook('precompact', root, {
    session_id: SESSION,
    transcript_path: transcript,
    cwd: root,
    permission_mode: 'default',
    hook_event_name: 'PreCompact',
    trigger: 'auto',
    custom_instructions: '',
  })
  assert.is(compact.status, 0, compact.stderr)
  assert.match(compact.stdout, /^Foundry memory holds 0 facts\./)

  const [run] = await until(
    'the distill run to complete',
    () => distillRuns(root),
    (runs) => runs.some((r) => r.status === 'complete' || r.status === 'failed'),
  )
  assert.is(run?.status, 'complete')
  const listed = cli(['review', '--json'], { cwd: root })
  const waiting = JSON.parse(listed.stdout).proposals as Array<{
    id: string
    author: string
    origin: string
    fact: { title: string }
  }>
  assert.equal(
    waiting.map((p) => [p.id, p.fact.title, p.author, p.origin]),
    proposals.map((p, i) => [`proposal-000${i + 1}`, p.title, 'capture', `session ${SESSION}`]),
  )
  assert.is(cli(['list'], { cwd: root }).stdout, 'No active facts.\n', 'nothing in memory before review')

  assert.match(cli(['review', '--accept', 'proposal-0001'], { cwd: root }).stdout, /^created: fact-0001\n/)
  assert.match(
    cli(['review', '--reject', 'proposal-0002', '--reason', 'numbered per year'], { cwd: root }).stdout,
    /^rejected: proposal-0002 /,
  )
  assert.match(
    cli(['review', '--edit', 'proposal-0003', '--body', 'Why: fraud.\nHow to apply: ask finance and legal.'], {
      cwd: root,
    }).stdout,
    /^edited: proposal-0003 /,
  )
  assert.match(cli(['review', '--accept', 'proposal-0003'], { cwd: root }).stdout, /^created: fact-0002\n/)
  assert.match(cli(['show', 'fact-0002'], { cwd: root }).stdout, /ask finance and legal/)
  assert.match(
    cli(['tokens'], { cwd: root }).stdout,
    /marbles agent memory\.distill: 1 run, \d+ input \+ \d+ output tokens/,
  )

  // The next capture reads only what was appended since; an answer breaking facts.proposal.v1 fails the run and queues nothing.
  appendFileSync(
    transcript,
    exchange(root, 1, 'And one more thing.', { facts: [{ title: 'Reports are cached', type: 'opinion' }] }),
  )
  const end = hook('session-end', root, {
    session_id: SESSION,
    transcript_path: transcript,
    cwd: root,
    permission_mode: 'default',
    hook_event_name: 'SessionEnd',
    reason: 'prompt_input_exit',
  })
  assert.is(end.status, 0, end.stderr)
  assert.is(end.stdout, '')
  const runs = await until(
    'the second distill run to settle',
    () => distillRuns(root),
    (all) => all.length === 2 && all.every((r) => r.status === 'complete' || r.status === 'failed'),
  )
  assert.equal(runs.map((r) => r.status).sort(), ['complete', 'failed'])
  const all = JSON.parse(cli(['review', '--status', 'all', '--json'], { cwd: root }).stdout).proposals as unknown[]
  assert.is(all.length, 3, 'nothing queued by the failed run')
})

test('a distill run killed while its agent works leaves nothing written; the next capture proposes each fact once', async () => {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  writeFileSync(
    join(root, '.foundry', 'config.json'),
    JSON.stringify({ storage: { kind: 'fs' }, capture: { enabled: true } }),
  )
  const transcript = join(root, 'session.jsonl')
  writeFileSync(transcript, exchange(root, 0, 'We settled the money rules. [delay-ms:15000]', { facts: proposals }))
  const env = { ...process.env, PATH: `${FAKE_CLI}${delimiter}${process.env.PATH}` }
  const child = spawn(process.execPath, [MARBLES, '--root', root, 'distill', transcript, '--session', SESSION], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const runId = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()))
    child.once('exit', (code) => reject(new Error(`marbles distill exited ${code} before starting its run`)))
  })
  // Killed once the agent is at work (the fake claude has announced itself in the run's journal).
  await until(
    'the agent to start',
    async () => {
      const project = await openProject({ root })
      try {
        return (await project.storage.readLog(`marbles/${runId}`, 0)).entries.join('\n')
      } finally {
        await project.close()
      }
    },
    (journal) => journal.includes('fake-claude argv'),
  )
  child.kill('SIGKILL')
  await new Promise((resolve) => child.once('exit', resolve))
  assert.is(
    JSON.parse(cli(['review', '--status', 'all', '--json'], { cwd: root }).stdout).proposals.length,
    0,
    'nothing queued',
  )
  assert.not.ok(existsSync(join(root, '.foundry', 'data', 'marbles.capture')), 'no cursor moved')

  writeFileSync(transcript, exchange(root, 0, 'We settled the money rules.', { facts: proposals }))
  const again = spawnSync(process.execPath, [MARBLES, '--root', root, 'distill', transcript, '--session', SESSION], {
    cwd: root,
    env,
    encoding: 'utf8',
  })
  assert.is(again.status, 0, again.stderr)
  assert.is(JSON.parse(cli(['review', '--json'], { cwd: root }).stdout).proposals.length, 3)
  const runs = await distillRuns(root)
  assert.equal(
    runs.map((r) => r.status).sort(),
    ['complete', 'failed'],
    'the killed run is settled as failed (interrupted)',
  )
})

test('capture is opt-in: without capture.enabled the hooks start no run', async () => {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  const transcript = join(root, 'session.jsonl')
  writeFileSync(transcript, exchange(root, 0, 'We settled the money rules.', { facts: proposals }))
  const end = hook('session-end', root, {
    session_id: SESSION,
    transcript_path: transcript,
    cwd: root,
    hook_event_name: 'SessionEnd',
    reason: 'clear',
  })
  assert.is(end.status, 0, end.stderr)
  const project = await openProject({ root })
  const events = (await project.storage.readEvents()).map((e) => e.kind)
  await project.close()
  assert.ok(events.includes('session_end') && !events.includes('hooks.capture'), events.join(', '))
  assert.equal(await distillRuns(root), [])
})

test.run()
