// Each harness against its stand-in: the fake CLIs (test/fixtures/bin) emitting the real stream
// formats, and the AI SDK's own mock model. Scenarios: success, error, max turns, a crash partway,
// a hang that must be cancelled (its process tree killed after the grace period).
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel, memoryStorage, type Kernel } from '@foundry/kernel'
import { MockLanguageModelV4 } from 'ai/test'
import { resolveCwd } from '../src/agents/cwd.js'
import { KERNEL_TOOLS } from '@foundry/kernel/tools'
import { aiSdkHarness } from '../src/harnesses/ai-sdk.js'
import { claudeCodeHarness } from '../src/harnesses/claude-code.js'
import { codexHarness } from '../src/harnesses/codex.js'
import { piHarness } from '../src/harnesses/pi.js'
import { HarnessError, type AgentRequest, type Harness } from '../src/harnesses/types.js'
import { alive, FAKE_BIN, until } from './helpers.js'

const kernel = createKernel({ storage: memoryStorage() })
const CWD = mkdtempSync(join(tmpdir(), 'marbles-harness-'))
const request = (prompt: string, extra: Partial<AgentRequest> = {}) => {
  const lines: string[] = []
  const req: AgentRequest = {
    prompt,
    instructions: 'Be brief.',
    model: undefined,
    cwd: CWD,
    maxTurns: undefined,
    compaction: undefined,
    resume: undefined,
    newSessionId: 'sess-1',
    signal: new AbortController().signal,
    output: (stream, line) => void lines.push(`${stream}: ${line}`),
    kernel,
    foundryMcp: undefined,
    ...extra,
  }
  return { req, lines }
}
const fails = async (harness: Harness, prompt: string, expected: RegExp, extra: Partial<AgentRequest> = {}) => {
  try {
    await harness.run(request(prompt, extra).req)
  } catch (error) {
    assert.instance(error, HarnessError)
    assert.match((error as Error).message, expected)
    return error as HarnessError
  }
  throw new Error(`${harness.name}: "${prompt}" did not fail`)
}

const CLIS: Array<[string, Harness, { error: RegExp; crash: RegExp; session: string | undefined }]> = [
  [
    'claude-code',
    claudeCodeHarness({ command: join(FAKE_BIN, 'claude'), graceMs: 300 }),
    {
      error: /claude-code failed \(success\): API Error: 401/,
      crash: /claude-code exited \(code 3\) before its result: fake-claude: fatal/,
      session: 'sess-1',
    },
  ],
  [
    'codex',
    codexHarness({ command: join(FAKE_BIN, 'codex'), graceMs: 300 }),
    {
      error: /codex failed: stream error: unexpected status 401/,
      crash: /codex exited \(code 101\) without an answer: fake-codex: thread panicked/,
      session: undefined,
    },
  ],
  [
    'pi',
    piHarness({ command: join(FAKE_BIN, 'pi'), graceMs: 300 }),
    { error: /pi failed: 401/, crash: /pi exited \(code 1\) before agent_end: fake-pi: TypeError/, session: undefined },
  ],
]

for (const [name, harness, expect] of CLIS) {
  test(`${name}: success parses the answer, the session and the usage; every line reaches the journal`, async () => {
    const { req, lines } = request('Do it. ANSWER<<all good>>ANSWER')
    const result = await harness.run(req)
    assert.is(result.text, 'all good')
    assert.ok(result.sessionId, 'a session id to continue')
    if (expect.session) assert.is(result.sessionId, expect.session)
    assert.ok(result.usage.inputTokens > 0 && result.usage.outputTokens > 0)
    assert.ok(lines.some((l) => l.startsWith('stdout: {')) && lines.some((l) => l.startsWith('stderr: fake-')))
    const again = await harness.run(request('More. ANSWER<<again>>ANSWER', { resume: result.sessionId! }).req)
    assert.is(again.sessionId, result.sessionId, 'resumed')
  })
  test(`${name}: an error result fails with its message`, async () => {
    await fails(harness, '[scenario:error]', expect.error)
  })
  test(`${name}: a crash partway fails naming the exit and the last stderr line`, async () => {
    await fails(harness, '[scenario:crash]', expect.crash)
  })
  test(`${name}: a hang is cancelled: SIGTERM ignored, the process tree killed after the grace period`, async () => {
    const controller = new AbortController()
    const { req, lines } = request('[scenario:hang]', { signal: controller.signal })
    const running = harness.run(req)
    const grandchild = await until(
      () => {
        const line = lines.find((l) => l.includes('grandchild'))
        return line ? Number(/grandchild (\d+)/.exec(line)![1]) : undefined
      },
      10_000,
      'the hang',
    )
    const started = Date.now()
    controller.abort(new DOMException('cancelled by request', 'AbortError'))
    try {
      await running
      assert.unreachable('a cancelled run rejects')
    } catch (error) {
      assert.is((error as Error).name, 'AbortError')
    }
    assert.ok(Date.now() - started >= 250, 'after the grace period')
    await until(() => !alive(grandchild), 3000, 'the grandchild to die')
    assert.ok(
      lines.some((l) => l.includes('SIGTERM ignored')),
      'asked first',
    )
  })
}

test("agent CLIs get an allow-listed environment: provider keys and the basics, never Foundry's secrets or the hook variables", async () => {
  const planted = {
    FOUNDRY_TOKEN: 'tok-planted-7f3a',
    FOUNDRY_DATABASE_URL: 'postgres://app:pw-planted-91c2@db.internal:5432/foundry',
    FOUNDRY_URL: 'http://127.0.0.1:7411/mcp',
    CLAUDE_PROJECT_DIR: '/somewhere/else',
    MARBLES_QUEUE_URL: 'postgres://app:pw-planted-91c2@db.internal:5432/queue',
    ANTHROPIC_API_KEY: 'sk-ant-test',
    OPENAI_API_KEY: 'sk-openai-test',
    MY_TOOL_HOME: '/opt/tool',
    MARBLES_AGENT_ENV: 'MY_TOOL_HOME',
  }
  const saved = Object.fromEntries(Object.keys(planted).map((k) => [k, process.env[k]]))
  Object.assign(process.env, planted)
  try {
    for (const [name, harness] of CLIS) {
      const foundryMcp = {
        command: process.execPath,
        args: ['foundry.js', 'mcp'],
        env: { FOUNDRY_ROOT: '/project', FOUNDRY_DATABASE_URL: planted.FOUNDRY_DATABASE_URL },
      }
      const { req, lines } = request('Do it. ANSWER<<ok>>ANSWER', { foundryMcp })
      await harness.run(req)
      const announced = lines.find((l) => / argv \{/.test(l))!
      const { argv, env } = JSON.parse(announced.slice(announced.indexOf('{'))) as { argv: string[]; env: string[] }
      for (const kept of ['PATH', 'HOME', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'MY_TOOL_HOME'])
        assert.ok(env.includes(kept), `${name}: ${kept} kept`)
      for (const dropped of [
        'FOUNDRY_TOKEN',
        'FOUNDRY_DATABASE_URL',
        'FOUNDRY_URL',
        'CLAUDE_PROJECT_DIR',
        'MARBLES_QUEUE_URL',
      ])
        assert.not.ok(env.includes(dropped), `${name}: ${dropped} dropped`)
      assert.not.ok(argv.join(' ').includes('pw-planted'), `${name}: no password on the command line`)
    }
  } finally {
    for (const [k, v] of Object.entries(saved)) v === undefined ? delete process.env[k] : (process.env[k] = v)
  }
})

test('claude-code: max turns fails with error_max_turns; usage and cost are kept for the record', async () => {
  const harness = CLIS[0]![1]
  const error = await fails(
    harness,
    '[scenario:max-turns]',
    /claude-code failed \(error_max_turns\): reached maxTurns after 4 turns/,
    { maxTurns: 4 },
  )
  assert.is(error.partial.usage?.costUsd, 0.0123)
  assert.is(error.partial.turns, 4)
})

test('a CLI that is not installed fails naming it and the fix', async () => {
  try {
    await claudeCodeHarness({ command: 'claude-not-installed-here' }).run(request('x').req)
    assert.unreachable()
  } catch (error) {
    assert.match(
      (error as Error).message,
      /claude-not-installed-here not found on PATH: install it, or pass --harness <provider>=<path>/,
    )
  }
})

test('the AI SDK: kernel calls are tools (memory_search finds the fact), maxTurns is a step limit, a session continues', async () => {
  const storage = memoryStorage()
  const k: Kernel = createKernel({ storage })
  await k.memory.write({
    title: 'Refunds go through the ledger',
    body: 'Every refund is a ledger entry.\nWhy: audits.\nHow to apply: call ledger.refund.',
    type: 'decision',
  })
  const usage = {
    inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: undefined, reasoning: undefined },
  }
  const toolStep = {
    content: [
      {
        type: 'tool-call' as const,
        toolCallId: 'c1',
        toolName: 'memory_search',
        input: JSON.stringify({ query: 'refund ledger' }),
      },
    ],
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_use' },
    usage,
    warnings: [],
  }
  const answerStep = {
    content: [{ type: 'text' as const, text: 'Refunds are ledger entries.' }],
    finishReason: { unified: 'stop' as const, raw: 'stop' },
    usage,
    warnings: [],
  }
  const model = new MockLanguageModelV4({ doGenerate: [toolStep, answerStep, answerStep] })
  const harness = aiSdkHarness({ provider: 'anthropic', resolveModel: async () => model })
  assert.is(harness.maxTurns, 'steps')
  const { req, lines } = request('How do refunds work?', { kernel: k })
  const result = await harness.run(req)
  assert.is(result.text, 'Refunds are ledger entries.')
  assert.is(result.turns, 2)
  assert.equal(result.usage, { inputTokens: 20, outputTokens: 10 })
  const toolResult = JSON.stringify(model.doGenerateCalls[1]!.prompt)
  assert.ok(
    toolResult.includes('Refunds go through the ledger'),
    'memory_search ran against the kernel, and the model saw its facts',
  )
  assert.ok(lines.some((l) => l.includes('"toolName":"memory_search"')))
  // The agent's tools are foundry mcp's rows: the same names, descriptions and input schemas.
  const offered = (model.doGenerateCalls[0]!.tools ?? []) as Array<{
    name: string
    description?: string
    inputSchema: unknown
  }>
  assert.equal(
    offered.map((t) => t.name),
    ['memory_search', 'contract_validate', 'blackboard_write', 'blackboard_read'],
  )
  for (const t of offered) {
    const row = KERNEL_TOOLS.find((r) => r.name === t.name)!
    assert.is(t.description, row.description, t.name)
    assert.equal(t.inputSchema, JSON.parse(JSON.stringify(row.input)), t.name)
  }

  const next = await harness.run(request('And chargebacks?', { kernel: k, resume: result.sessionId! }).req)
  assert.is(next.sessionId, result.sessionId)
  assert.ok(
    JSON.stringify(model.doGenerateCalls[2]!.prompt).includes('How do refunds work?'),
    'the conversation continued',
  )

  const looping = new MockLanguageModelV4({ doGenerate: toolStep })
  const limited = await aiSdkHarness({ provider: 'anthropic', resolveModel: async () => looping }).run(
    request('loop', { kernel: k, maxTurns: 3, newSessionId: 's2' }).req,
  )
  assert.is(looping.doGenerateCalls.length, 3, 'maxTurns: 3 steps, then it stops')
  assert.is(limited.turns, 3)
})

test('cwd: inside the root (symbolic links followed); outside, or missing, is refused naming cwd', () => {
  const root = mkdtempSync(join(tmpdir(), 'marbles-cwd-'))
  mkdirSync(join(root, 'src'))
  symlinkSync(tmpdir(), join(root, 'escape'))
  assert.is(resolveCwd(root, 'src'), join(root, 'src'))
  assert.is(resolveCwd(root, undefined), root)
  assert.throws(() => resolveCwd(root, '../'), /cwd "..\/" resolves to .*, outside the workspace root/)
  assert.throws(() => resolveCwd(root, '/etc'), /outside the workspace root/)
  assert.throws(() => resolveCwd(root, 'escape'), /outside the workspace root/)
  assert.throws(() => resolveCwd(root, 'nope'), /cwd "nope" is not a folder inside the workspace root/)
})

test.run()
