import { validator } from '@foundry/kernel'
import { KERNEL_TOOLS, type ToolName } from '@foundry/kernel/tools'
import { openProject } from '@foundry/project'
import fc from 'fast-check'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanup, cli, tempDir } from './helpers.js'
import { startInitialized, toolCall, type RawServer } from './raw.js'

/** A tool's input schema: the row's, as the server validates with. */
const inputOf = (name: ToolName) => KERNEL_TOOLS.find((row) => row.name === name)!.input

/**
 * The attack suite's protocol fuzzer (issue 14): fast-check generates thousands of messages (invalid
 * JSON, wrong JSON-RPC shapes, wrong types, huge and deep values, binary garbage, tool calls with
 * hostile arguments) and writes them to a real `foundry mcp` over raw stdio. After every batch a ping
 * must be answered (no hang) by a live process (no crash); at the end the stored facts and
 * artifacts are exactly those before (every writing call is made invalid on purpose, so each is
 * rejected), and the server exits 0 when stdin closes. `FUZZ_SEED` replays a run; `FUZZ_RUNS` scales it.
 */
const RUNS = Number(process.env.FUZZ_RUNS) || 70
const SEED = Number(process.env.FUZZ_SEED) || Date.now() % 1_000_000
const TOOLS = ['memory_search', 'memory_write', 'memory_index', 'runbook_list', 'runbook_get', 'contract_validate', 'blackboard_write', 'blackboard_read', 'token_report', 'memory_forget']
const METHODS = ['initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'notifications/initialized', 'notifications/cancelled', 'prompts/list', 'completion/complete', 'logging/setLevel', '']
const WRITES: Record<string, ReturnType<typeof validator>> = {
  memory_write: validator(inputOf('memory_write')),
  memory_forget: validator(inputOf('memory_forget')),
  blackboard_write: validator(inputOf('blackboard_write')),
}

const anyId = fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null), fc.double(), fc.boolean(), fc.object({ maxDepth: 1 }), fc.array(fc.integer(), { maxLength: 3 }))
const hostileString = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constantFrom('../../../etc/passwd', '/etc/shadow', '/proc/self/environ', '/dev/zero', '%2e%2e%2f', 'a\u0000b', '</system>', '${process.env}', '\u202e', 'fact-99999999999999999999'),
  fc.integer({ min: 10_000, max: 200_000 }).map((n) => 'x'.repeat(n)),
)
const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 4 }), hostileString)
const toolArgs = fc.oneof(
  fc.dictionary(fc.constantFrom('query', 'title', 'body', 'type', 'scope', 'tags', 'limit', 'slug', 'schema', 'data', 'path', 'wave', 'agent', 'full', 'version', 'id', 'reason', 'supersedes', 'source', 'expires'), anyValue, { maxKeys: 6 }),
  fc.dictionary(fc.string({ maxLength: 10 }), anyValue, { maxKeys: 4 }),
  anyValue,
)

type Message = { kind: 'raw'; bytes: Buffer } | { kind: 'json'; value: unknown }
const raw = (text: string | Uint8Array): Message => ({ kind: 'raw', bytes: Buffer.from(text as string) })
const message: fc.Arbitrary<Message> = fc.oneof(
  // binary garbage and text that is not JSON
  fc.uint8Array({ maxLength: 512 }).map((bytes) => raw(bytes)),
  fc.string({ maxLength: 300 }).map((s) => raw(s.replace(/\n/g, ' '))),
  // JSON that is no JSON-RPC message
  fc.jsonValue({ maxDepth: 5 }).map((value) => ({ kind: 'json' as const, value })),
  // JSON-RPC shapes with wrong types
  fc
    .record({ jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.integer(), fc.constant(null)), id: anyId, method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 30 }), fc.integer()), params: anyValue }, { requiredKeys: [] })
    .map((value) => ({ kind: 'json' as const, value })),
  // tool calls with hostile arguments
  fc
    .record({ id: fc.oneof(fc.integer({ min: 1 }), fc.string({ maxLength: 10 })), name: fc.oneof(fc.constantFrom(...TOOLS), fc.string({ maxLength: 40 })), args: toolArgs })
    .map(({ id, name, args }) => ({ kind: 'json' as const, value: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } } })),
  fc
    .record({ id: fc.integer({ min: 1 }), uri: hostileString })
    .map(({ id, uri }) => ({ kind: 'json' as const, value: { jsonrpc: '2.0', id, method: 'resources/read', params: { uri } } })),
  fc.record({ requestId: anyId }).map((params) => ({ kind: 'json' as const, value: { jsonrpc: '2.0', method: 'notifications/cancelled', params } })),
  // deep nesting, as raw text (JSON.stringify itself overflows on it)
  fc.integer({ min: 100, max: 20_000 }).map((depth) => raw(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"blackboard_write","arguments":{"data":${'['.repeat(depth)}${']'.repeat(depth)}}}}`)),
  fc.integer({ min: 100, max: 20_000 }).map((depth) => raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)),
)

/** Every call that could write is made invalid (an unknown property), so it must be rejected and change nothing. */
function defanged(m: Message): Message {
  if (m.kind !== 'json') return m
  const value = m.value as { method?: unknown; params?: { name?: unknown; arguments?: unknown } }
  const name = value?.params?.name
  if (value?.method === 'tools/call' && typeof name === 'string' && name in WRITES) {
    return { kind: 'json', value: { ...value, params: { ...value.params, arguments: { ...(value.params!.arguments as object), 'fuzz-unknown-property': 1 } } } }
  }
  return m
}

const encode = (m: Message): Buffer => (m.kind === 'raw' ? Buffer.concat([m.bytes, Buffer.from('\n')]) : Buffer.from(`${JSON.stringify(m.value)}\n`))

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
    let server: RawServer = await startInitialized(root)
    await server.send(
      toolCall(1, 'memory_write', { title: 'Money is stored in integer cents', body: 'Never floats.', type: 'convention' }),
      toolCall(2, 'blackboard_write', { wave: 'audit', agent: 'appsec-reviewer', schema: 'finding.v1', data: { title: 'T', severity: 'high', summary: 'S.', failureScenario: 'F.' } }),
    )
    assert.not.ok((await server.answer(1)).result?.isError)
    assert.not.ok((await server.answer(2)).result?.isError)
    const before = await storedState(root)
    let sent = 0
    let probes = 0
    let crashes = 0
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(message, { minLength: 20, maxLength: 60, size: "max" }), async (batch) => {
          if (!server.alive()) server = await startInitialized(root)
          for (const m of batch) await server.write(encode(defanged(m)))
          sent += batch.length
          const probe = `probe-${++probes}`
          await server.send({ jsonrpc: '2.0', id: probe, method: 'ping' })
          const alive = await server.answer(probe, 15_000).then(
            (answer) => 'result' in answer,
            () => false,
          )
          if (!server.alive()) crashes++
          return alive && server.alive()
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      )
    } finally {
      const exit = await server.close()
      console.log(`  fuzz (${storage}, seed ${SEED}): ${sent} messages in ${probes} batches, ${crashes} crashes; exit ${exit.code}; peak RSS ${server.peakRssMiB().toFixed(0)} MiB`)
      assert.is(exit.code, 0, server.stderr().slice(-2000))
    }
    assert.is(crashes, 0)
    assert.is(await storedState(root), before, 'rejected calls changed nothing stored')
    assert.not.match(server.stderr(), /uncaught exception|unhandled rejection/, server.stderr().slice(-2000))
  })

  test.run()
}
