// `marbles mcp` end to end: the built bin over stdio, the MCP SDK's own Client, the fake CLIs on PATH.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readJournal } from '../src/journal/follow.js'
import { PAGE_CHARS } from '../src/mcp/host.js'
import { AGENTS, alive, connectMcp, installFoundry, marbles, newProject, open, until } from './helpers.js'

const review = {
  summary: 'One bug in the retry loop.',
  verdict: 'request-changes',
  findings: [
    {
      title: 'Retry never stops',
      severity: 'high',
      failureScenario: 'The payment API returns 500 forever and the loop spins.',
    },
  ],
}
const answer = (value: unknown) => `ANSWER<<${JSON.stringify(value)}>>ANSWER`

test('the five tools: list_config, dispatch_workflow (an acknowledgement), get_run, cancel_run; every error names its field', async () => {
  const root = await newProject('fs')
  const mcp = await connectMcp(['--root', root, '--source', AGENTS])
  try {
    const { tools } = await mcp.client.listTools()
    assert.equal(
      tools.map((t) => t.name),
      ['list_config', 'dispatch_workflow', 'dispatch_agent', 'get_run', 'cancel_run', 'signal_run'],
    )
    assert.ok(
      tools.every((t) => !t.outputSchema),
      'no tool publishes an output schema (every session pays for tools/list); connectMcp checks structuredContent against each row',
    )

    const config = await mcp.call('list_config')
    assert.is(config.error, undefined)
    assert.equal(JSON.parse(config.text), config.data, 'JSON in a text block, and the same structuredContent')
    assert.is(config.data.root, root)
    assert.equal(
      config.data.definitions.map((d: { name: string }) => d.name),
      ['big', 'hello', 'waits'],
    )
    assert.equal(config.data.definitions.find((d: { name: string }) => d.name === 'hello').inputSchema.required, [
      'who',
    ])
    assert.equal(config.data.agents, [
      {
        id: 'reviewer',
        description: 'Reviews a change',
        model: { provider: 'claude-code', model: 'claude-sonnet-4-5' },
      },
    ])
    assert.equal(config.data.schedules, [{ name: 'nightly', workflow: 'hello', when: 'cron 0 3 * * *' }])
    assert.ok(config.data.providers.includes('claude-code') && config.data.providers.includes('mock'))

    const ack = await mcp.call('dispatch_workflow', { name: 'hello', input: { who: 'ada' } })
    assert.equal(Object.keys(ack.data).sort(), ['kind', 'name', 'runId', 'status'], 'run fields only')
    assert.is(ack.data.kind, 'workflow')
    const done = await mcp.settle(ack.data.runId)
    assert.is(done.data.status, 'completed', 'MCP spells complete as completed')
    assert.equal(done.data.output, { greeting: 'hello ada' })

    const big = await mcp.settle((await mcp.call('dispatch_workflow', { name: 'big' })).data.runId)
    assert.is(big.data.output, undefined, 'a large output is paged, not returned whole')
    assert.is(big.data.outputText.length, PAGE_CHARS)
    assert.ok(big.data.artifact, 'it stays in its artifact')
    let json = big.data.outputText as string
    for (let cursor = big.data.nextCursor; cursor; ) {
      const next = await mcp.call('get_run', { runId: big.data.runId, cursor })
      json += next.data.outputText
      cursor = next.data.nextCursor
    }
    assert.is(json.length, big.data.totalChars)
    assert.is(JSON.parse(json).items.length, 3000, 'the pages join into the whole output')

    const waiting = await mcp.call('dispatch_workflow', { name: 'waits' })
    await until(
      async () => (await mcp.call('get_run', { runId: waiting.data.runId })).data.status === 'running',
      10_000,
      'running',
    )
    const cancelled = await mcp.call('cancel_run', { runId: waiting.data.runId })
    assert.is(cancelled.data.status, 'cancelled')

    const errors: Array<[string, Record<string, unknown>, RegExp]> = [
      ['dispatch_workflow', { name: 'nope' }, /name: no workflow or step "nope"; known: big, hello, waits/],
      ['dispatch_workflow', { name: 'hello', input: { who: 3 } }, /who/],
      ['dispatch_workflow', { name: 'hello', extra: 1 }, /extra/],
      ['dispatch_agent', { prompt: '' }, /prompt/],
      ['dispatch_agent', { prompt: 'x', agent: 'ghost' }, /agent: no agent "ghost"; declared: reviewer/],
      ['dispatch_agent', { prompt: 'x', provider: 'gpt-9' }, /provider: "gpt-9" is not offered/],
      [
        'dispatch_agent',
        { prompt: 'x', provider: 'claude-code', maxTurns: 101 },
        /maxTurns: claude-code accepts at most 100/,
      ],
      ['dispatch_agent', { prompt: 'x', provider: 'codex', maxTurns: 5 }, /maxTurns: the codex harness cannot enforce/],
      ['dispatch_agent', { prompt: 'x', provider: 'pi', maxTurns: 5 }, /maxTurns: the pi harness cannot enforce/],
      ['dispatch_agent', { prompt: 'x', maxTurns: 0 }, /maxTurns/],
      ['dispatch_agent', { prompt: 'x', timeoutMs: 2_147_483_648 }, /timeoutMs/],
      ['dispatch_agent', { prompt: 'x', cwd: '../..' }, /cwd: .*outside the workspace root/],
      ['dispatch_agent', { prompt: 'x', contract: 'nope.v9' }, /contract: .*nope\.v9/],
      [
        'dispatch_agent',
        { prompt: 'x', session: { id: 'unknown', model: 'm', provider: 'claude-code' } },
        /session: unknown is not a session/,
      ],
      ['get_run', { runId: 'run-00000000000000000000000000' }, /runId: run-0+ is not a run this server launched/],
      ['get_run', { runId: 'nope' }, /runId/],
      ['cancel_run', {}, /runId/],
      ['no_such_tool', {}, /Unknown tool "no_such_tool". Available: list_config/],
    ]
    for (const [tool, args, expected] of errors) {
      const result = await mcp.call(tool, args)
      assert.ok(result.error, `${tool} ${JSON.stringify(args)} is a tool error`)
      assert.match(result.error!, expected)
    }
  } finally {
    await mcp.client.close()
  }
})

test('dispatch_agent: an acknowledgement with its session; Claude Code gets foundry mcp and the memory index; the session continues; refused while busy', async () => {
  const root = await newProject('fs')
  const project = await open(root)
  await project.kernel.memory.write({
    title: 'Payments retry with backoff',
    body: 'Checkout retries payment calls three times with exponential backoff.\nWhy: the provider drops calls under load.\nHow to apply: keep the retry in the payment client.',
    type: 'decision',
  })
  await project.kernel.memory.index()
  await project.close()
  mkdirSync(join(root, 'sub'))
  installFoundry(root)
  const mcp = await connectMcp(['--root', root, '--source', AGENTS])
  try {
    const ack = await mcp.call('dispatch_agent', {
      agent: 'reviewer',
      prompt: 'Review the checkout. [delay-ms:800]',
      maxTurns: 7,
      cwd: 'sub',
    })
    assert.equal(Object.keys(ack.data).sort(), ['kind', 'name', 'runId', 'session', 'status'], 'no text, no output')
    assert.is(ack.data.kind, 'agent')
    assert.is(ack.data.session.provider, 'claude-code')
    const busy = await mcp.call('dispatch_agent', { prompt: 'again', session: ack.data.session })
    assert.match(busy.error ?? '', new RegExp(`session: ${ack.data.session.id} is in use by run ${ack.data.runId}`))

    const done = await mcp.settle(ack.data.runId)
    assert.is(done.data.status, 'completed', JSON.stringify(done.data))
    assert.is(done.data.text, 'Done: the task is complete.')
    assert.equal(done.data.session, ack.data.session)
    assert.is(done.data.usage.costUsd, 0.0123)
    assert.is(done.data.usage.inputTokens, 460)

    const project2 = await open(root)
    const journal = await readJournal(project2.storage, ack.data.runId)
    const argvLine = journal.find((r) => r.type === 'log' && r.message.startsWith('fake-claude argv'))
    assert.ok(argvLine, 'stderr goes to the journal')
    const { argv, cwd } = JSON.parse((argvLine as { message: string }).message.slice('fake-claude argv '.length))
    assert.is(cwd, join(root, 'sub'))
    const prompt = argv[argv.indexOf('-p') + 1] as string
    assert.ok(
      prompt.includes('Payments retry with backoff') &&
        prompt.indexOf('Payments retry') < prompt.indexOf('Review the checkout'),
      'the prompt starts with the memory index',
    )
    assert.is(argv[argv.indexOf('--max-turns') + 1], '7')
    assert.is(argv[argv.indexOf('--session-id') + 1], ack.data.session.id)
    const configLine = journal.find((r) => r.type === 'log' && r.message.startsWith('fake-claude mcp-config ')) as {
      message: string
    }
    const config = JSON.parse(configLine.message.slice('fake-claude mcp-config '.length))
    assert.not.ok(existsSync(argv[argv.indexOf('--mcp-config') + 1]), 'the private MCP config is removed after the run')
    assert.ok(
      config.mcpServers.foundry.args.some((a: string) => a.endsWith('foundry.cjs')),
      'foundry mcp, the built bin',
    )
    assert.is(config.mcpServers.foundry.env.FOUNDRY_ROOT, root)
    assert.is(
      config.mcpServers.foundry.env.MALLOC_TRIM_THRESHOLD_,
      '131072',
      "glibc's thresholds, as .mcp.json gives them",
    )
    const serverArgs = config.mcpServers.foundry.args as string[]
    assert.equal(
      serverArgs.slice(0, 2),
      ['--optimize-for-size', '--v8-pool-size=1'],
      "node's options, as .mcp.json gives them",
    )
    assert.ok(existsSync(serverArgs.at(-2)!))
    assert.ok(
      journal.some((r) => r.type === 'log' && r.message.includes('"type":"result"')),
      'stdout goes to the journal',
    )
    assert.ok(
      journal.some((r) => r.type === 'log' && r.message.startsWith('usage: 460 input + 7 output tokens, $0.0123')),
    )
    const usage = (await project2.storage.readEvents()).filter((e) => e.kind === 'marbles.usage')
    assert.is(usage.length, 1)
    assert.is(usage[0]!.data!.runId, ack.data.runId)
    assert.is(usage[0]!.data!.agent, 'reviewer')
    const report = await project2.kernel.tokens.report()
    assert.is(
      report.figures.usage?.runs[0]?.runId,
      ack.data.runId,
      'token_report and foundry tokens include Marbles runs',
    )
    assert.match(report.text, /marbles agent reviewer: 1 run, 460 input \+ 7 output tokens, \$0\.0123/)
    assert.match(report.accounting, new RegExp(`${ack.data.runId} +marbles reviewer: 460 in \\+ 7 out, \\$0\\.0123`))
    const foundryBin = serverArgs.at(-2)!
    const tokens = spawnSync(process.execPath, [foundryBin, 'tokens', '--root', root], { encoding: 'utf8' })
    assert.match(
      tokens.stdout,
      /marbles agent reviewer: 1 run, 460 input \+ 7 output tokens, \$0\.0123/,
      `foundry tokens: ${tokens.stdout}${tokens.stderr}`,
    )
    await project2.close()

    const next = await mcp.call('dispatch_agent', { prompt: 'And the refunds?', session: ack.data.session })
    assert.is(next.error, undefined, next.error)
    assert.equal(next.data.session, ack.data.session)
    await mcp.settle(next.data.runId)
    const project3 = await open(root)
    const line = (await readJournal(project3.storage, next.data.runId)).find(
      (r) => r.type === 'log' && r.message.startsWith('fake-claude argv'),
    ) as { message: string }
    const again = JSON.parse(line.message.slice('fake-claude argv '.length)).argv as string[]
    assert.is(again[again.indexOf('--resume') + 1], ack.data.session.id, 'continued with --resume')
    assert.is(
      again[again.indexOf('--append-system-prompt') + 1],
      'Review the change you are given.',
      'the declared agent’s instructions, from its session',
    )
    await project3.close()
  } finally {
    await mcp.client.close()
  }
})

test('an answer over the handoff budget: handoff.v1 through the firewall; get_run returns its summary and path; contracts pass or fail the run', async () => {
  const root = await newProject('fs')
  const mcp = await connectMcp(['--root', root, '--source', AGENTS])
  try {
    const large = await mcp.settle(
      (await mcp.call('dispatch_agent', { prompt: 'Explain everything. [answer-chars:80000]' })).data.runId,
    )
    assert.is(large.data.status, 'completed')
    assert.is(large.data.text, undefined, 'not the whole answer')
    assert.ok(large.data.summary.length <= 300 * 4 + 2)
    assert.is(large.data.tokens, 20_000)
    assert.match(large.data.artifact, new RegExp(`firewall/marbles-${large.data.runId}`))
    const saved = JSON.parse(readFileSync(join(root, large.data.artifact), 'utf8'))
    assert.is(saved.schema, 'handoff.v1')
    assert.is(saved.data?.text?.length ?? saved.text?.length, 80_000, 'the whole answer, saved unchanged')
    assert.ok(
      large.text.length < 3000,
      `get_run returns ${large.text.length} characters for an 80 000-character answer`,
    )

    const valid = await mcp.settle(
      (await mcp.call('dispatch_agent', { prompt: `Review. ${answer(review)}`, contract: 'review.v1' })).data.runId,
    )
    assert.is(valid.data.status, 'completed', JSON.stringify(valid.data))
    assert.equal(valid.data.data, review)
    assert.is(valid.data.contract, 'review.v1')

    const invalid = await mcp.settle(
      (
        await mcp.call('dispatch_agent', {
          prompt: `Review. ${answer({ verdict: 'maybe', findings: [{ title: 'x' }] })}`,
          contract: 'review.v1',
        })
      ).data.runId,
    )
    assert.is(invalid.data.status, 'failed')
    assert.is(invalid.data.error.name, 'ContractViolation')
    assert.match(invalid.data.error.message, /the answer violates review.v1: /)
    assert.match(invalid.data.error.message, /summary/)
    assert.match(invalid.data.error.message, /verdict/)
    assert.match(invalid.data.error.message, /failureScenario/)

    const prose = await mcp.settle(
      (await mcp.call('dispatch_agent', { prompt: 'Review, in prose.', contract: 'finding.v1' })).data.runId,
    )
    assert.is(prose.data.status, 'failed')
    assert.match(prose.data.error.message, /finding.v1: the answer is not JSON/)
  } finally {
    await mcp.client.close()
  }
})

test('harness failures fail the run with their message; a timeout fails it; codex, pi and the AI SDK mock answer', async () => {
  const root = await newProject('fs')
  const mcp = await connectMcp(['--root', root, '--source', AGENTS])
  try {
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ prompt: '[scenario:error]' }, 'failed', /claude-code failed \(success\): API Error: 401/],
      [
        { prompt: '[scenario:max-turns]', maxTurns: 3 },
        'failed',
        /claude-code failed \(error_max_turns\): reached maxTurns after 3 turns/,
      ],
      [
        { prompt: '[scenario:crash]' },
        'failed',
        /claude-code exited \(code 3\) before its result: fake-claude: fatal: connection reset/,
      ],
      [{ prompt: '[scenario:hang]', timeoutMs: 300 }, 'failed', /timed out after 300 ms/],
      [
        { prompt: '[scenario:error]', provider: 'codex' },
        'failed',
        /codex failed: stream error: unexpected status 401/,
      ],
      [
        { prompt: '[scenario:crash]', provider: 'pi' },
        'failed',
        /pi exited \(code 1\) before agent_end: fake-pi: TypeError/,
      ],
    ]
    for (const [args, status, message] of cases) {
      const run = await mcp.settle((await mcp.call('dispatch_agent', args)).data.runId)
      assert.is(run.data.status, status, JSON.stringify(args))
      assert.match(run.data.error.message, message)
    }
    for (const provider of ['codex', 'pi']) {
      const run = await mcp.settle(
        (await mcp.call('dispatch_agent', { prompt: `Go. ${answer('fine')}`, provider })).data.runId,
      )
      assert.is(run.data.status, 'completed', provider)
      assert.is(run.data.text, '"fine"')
      assert.ok(run.data.usage.inputTokens > 0)
    }
    const hang = (await mcp.call('dispatch_agent', { prompt: '[scenario:hang]' })).data.runId as string
    const project = await open(root)
    const grandchild = await until(
      async () => {
        const line = (await readJournal(project.storage, hang)).find(
          (r) => r.type === 'log' && r.message.includes('grandchild'),
        ) as { message: string } | undefined
        return line ? Number(/grandchild (\d+)/.exec(line.message)![1]) : undefined
      },
      10_000,
      'the hang to start',
    )
    await project.close()
    const cancelled = await mcp.call('cancel_run', { runId: hang })
    assert.is(
      cancelled.data.status,
      'cancelled',
      'cancel_run: the harness aborted, its tree killed after the grace period',
    )
    await until(() => !alive(grandchild), 5000, 'the grandchild to be killed')
    const mock = await mcp.settle(
      (await mcp.call('dispatch_agent', { prompt: 'Say hi', provider: 'mock', maxTurns: 2 })).data.runId,
    )
    assert.is(mock.data.status, 'completed')
    assert.is(mock.data.text, '[dry run] Say hi')
  } finally {
    await mcp.client.close()
  }
})

for (const how of ['stdin', 'SIGTERM', 'SIGINT'] as const)
  test(`shutdown (${how}) with runs in flight: they are cancelled, the harness's process tree killed, the server exits 0`, async () => {
    const root = await newProject('sqlite')
    const mcp = await connectMcp(['--root', root, '--source', AGENTS])
    const workflow = (await mcp.call('dispatch_workflow', { name: 'waits' })).data.runId as string
    const agent = (await mcp.call('dispatch_agent', { prompt: '[scenario:hang]' })).data.runId as string
    const project = await open(root)
    const grandchild = await until(
      async () => {
        const line = (await readJournal(project.storage, agent)).find(
          (r) => r.type === 'log' && r.message.includes('grandchild'),
        ) as { message: string } | undefined
        return line && Number(/grandchild (\d+)/.exec(line.message)![1])
      },
      10_000,
      'the hang to start',
    )
    const pid = mcp.pid()!
    const exited = new Promise<number | null>((resolve) =>
      (mcp.transport as unknown as { _process: import('node:child_process').ChildProcess })._process.on(
        'exit',
        (code) => resolve(code),
      ),
    )
    if (how === 'stdin') await mcp.client.close()
    else process.kill(pid, how)
    assert.is(await exited, 0)
    for (const runId of [workflow, agent]) {
      const statuses = (await readJournal(project.storage, runId))
        .filter((r) => r.type === 'status')
        .map((r) => (r as { status: string }).status)
      assert.is(statuses.at(-1), 'cancelled', `${runId}: ${statuses.join(' → ')}`)
    }
    await until(() => !alive(grandchild), 5000, 'the grandchild to be killed')
    await project.close()
    if (how !== 'stdin') await mcp.client.close().catch(() => {})
  })

test("initialize is answered before the workspace opens: a start-up failure is the first call's error, one line naming the file or variable; a bad --harness stops the server before initialize", async () => {
  const root = await newProject('fs')
  for (const [source, message] of [
    [join(root, 'nowhere'), /^list_config failed: Marbles source not found: .*nowhere$/],
    [new URL('./fixtures/env', import.meta.url).pathname, /^list_config failed: Environment variable \w+ is missing/],
    [new URL('./fixtures/throws', import.meta.url).pathname, /^list_config failed: Cannot load .*boom\.ts/],
  ] as const) {
    const mcp = await connectMcp(['--root', root, '--source', source], { env: {} })
    try {
      const first = await mcp.call('list_config')
      assert.match(first.error ?? '', message)
      assert.is(first.error!.split('\n').length, 1)
      assert.match((await mcp.call('list_config')).error ?? '', message, 'the next call tries again')
    } finally {
      await mcp.client.close()
    }
  }
  const harness = marbles(['--root', root, '--source', AGENTS, 'mcp', '--harness', 'gpt-9'])
  assert.is(harness.code, 1)
  assert.is(harness.stdout, '', 'nothing on stdout: no initialize answered')
  assert.is(harness.stderr.trim().split('\n').length, 1)
  assert.match(harness.stderr, /--harness gpt-9: unknown provider "gpt-9"/)
})

test('--dry-run: agents run on the AI SDK mock model, in memory', async () => {
  const root = await newProject('fs')
  const mcp = await connectMcp(['--root', root, '--source', AGENTS, '--dry-run'])
  try {
    const run = await mcp.settle(
      (await mcp.call('dispatch_agent', { agent: 'reviewer', prompt: 'Review the diff' })).data.runId,
    )
    assert.is(run.data.status, 'completed')
    assert.is(run.data.text, '[dry run] Review the diff')
  } finally {
    await mcp.client.close()
  }
})

test.run()
