import { BlackboardWriteInputSchema, FactInputSchema, ForgetInputSchema, validator } from '@foundry/kernel'
import { openProject } from '@foundry/project'
import fc from 'fast-check'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { fuzzMessages, fuzzServer, type FuzzMessage } from '@foundry/server/testing'
import { cleanup, cli, tempDir } from './helpers.js'
import { startInitialized, toolCall } from './raw.js'

/**
 * The attack suite's protocol fuzzer (issue 14): fast-check generates thousands of messages (invalid
 * JSON, wrong JSON-RPC shapes, wrong types, huge and deep values, binary garbage, tool calls with
 * hostile arguments) and writes them to a real `foundry mcp` over raw stdio. After every batch a ping
 * must be answered (no hang) by a live process (no crash); at the end the stored facts and
 * artifacts are exactly those before (every writing call is made invalid on purpose, so each is
 * rejected), and the server exits 0 when stdin closes. `FUZZ_SEED` replays a run; `FUZZ_RUNS` scales it.
 * The generator and the loop are `@foundry/server/testing`'s, shared with `marbles mcp`'s fuzz test.
 */
const RUNS = Number(process.env.FUZZ_RUNS) || 70
const SEED = Number(process.env.FUZZ_SEED) || Date.now() % 1_000_000
const TOOLS = ['memory_search', 'memory_write', 'memory_index', 'runbook_list', 'runbook_get', 'contract_validate', 'blackboard_write', 'blackboard_read', 'token_report', 'memory_forget']
const WRITES: Record<string, ReturnType<typeof validator>> = {
  memory_write: validator(FactInputSchema),
  memory_forget: validator(ForgetInputSchema),
  blackboard_write: validator(BlackboardWriteInputSchema),
}

const messages = fuzzMessages(fc, {
  tools: TOOLS,
  argumentKeys: ['query', 'title', 'body', 'type', 'scope', 'tags', 'limit', 'slug', 'schema', 'data', 'path', 'wave', 'agent', 'full', 'version', 'id', 'reason', 'supersedes', 'source', 'expires'],
})

/** Every call that could write is made invalid (an unknown property), so it must be rejected and change nothing. */
function defanged(m: FuzzMessage): FuzzMessage {
  if (m.kind !== 'json') return m
  const value = m.value as { method?: unknown; params?: { name?: unknown; arguments?: unknown } }
  const name = value?.params?.name
  if (value?.method === 'tools/call' && typeof name === 'string' && name in WRITES) {
    return { kind: 'json', value: { ...value, params: { ...value.params, arguments: { ...(value.params!.arguments as object), 'fuzz-unknown-property': 1 } } } }
  }
  return m
}

async function storedState(root: string): Promise<string> {
  const project = await openProject({ root })
  try {
    const facts = await project.kernel.memory.list({ status: 'all' })
    const artifacts = await project.kernel.blackboard.all()
    return JSON.stringify({ facts, artifacts })
  } finally {
    await project.close()
  }
}

for (const storage of ['fs', 'sqlite'] as const) {
  const test = suite(`fuzz: foundry mcp over raw stdio (${storage})`)
  test.after(cleanup)

  test(`${RUNS} batches of generated messages: 0 crashes, 0 hangs, stored data unchanged (${storage}, seed ${SEED})`, async () => {
    const root = tempDir()
    assert.is(cli(['init', '--storage', storage], { cwd: root }).code, 0)
    const first = await startInitialized(root)
    await first.send(
      toolCall(1, 'memory_write', { title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' }),
      toolCall(2, 'blackboard_write', { wave: 'audit', agent: 'appsec-reviewer', schema: 'finding.v1', data: { title: 'T', severity: 'high', summary: 'S.', failureScenario: 'F.' } }),
    )
    assert.not.ok((await first.answer(1)).result?.isError)
    assert.not.ok((await first.answer(2)).result?.isError)
    const before = await storedState(root)
    let started = false
    const run = await fuzzServer(fc, { start: async () => (started ? startInitialized(root) : ((started = true), first)), messages, runs: RUNS, seed: SEED, prepare: defanged })
    const { server, sent, probes, crashes } = run
    const exit = await server.close()
    console.log(`  fuzz (${storage}, seed ${SEED}): ${sent} messages in ${probes} batches, ${crashes} crashes; exit ${exit.code}; peak RSS ${server.peakRssMiB().toFixed(0)} MiB`)
    if (run.failure) throw run.failure
    assert.is(exit.code, 0, server.stderr().slice(-2000))
    assert.is(crashes, 0)
    assert.is(await storedState(root), before, 'rejected calls changed nothing stored')
    assert.not.match(server.stderr(), /uncaught exception|unhandled rejection/, server.stderr().slice(-2000))
  })

  test.run()
}
