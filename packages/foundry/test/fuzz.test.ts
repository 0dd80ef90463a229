import { validator } from '@foundry/kernel'
import { KERNEL_TOOLS, type ToolName } from '@foundry/kernel/tools'
import { openProject } from '@foundry/project'
import fc from 'fast-check'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { encodeMessage as encode, fuzzMessages, fuzzServer } from '@foundry/server/testing'
import { BIN, cleanup, cli, tempDir } from './helpers.js'
import { startHttp } from './http-helpers.js'
import { rawExchange } from './raw-http.js'
import { startInitialized, toolCall } from './raw.js'

/** One message of the fuzzer, as it encodes it. */
type FuzzMessage = Parameters<typeof encode>[0]

/** A tool's input schema: the row's, as the server validates with. */
const inputOf = (name: ToolName) => KERNEL_TOOLS.find((row) => row.name === name)!.input

/**
 * The attack suite's protocol fuzzer (issue 14): fast-check generates thousands of messages (invalid
 * JSON, wrong JSON-RPC shapes, wrong types, huge and deep values, binary garbage, tool calls with
 * hostile arguments) and writes them to a real `foundry mcp` over raw stdio. After every batch a ping
 * must be answered (no hang) by a live process (no crash); at the end the stored facts and
 * artifacts are exactly those before (every writing call is made invalid on purpose, so each is
 * rejected), and the server exits 0 when stdin closes. `FUZZ_SEED` replays a run; `FUZZ_RUNS` scales it.
 * The generator and the loop are `@foundry/server/testing`'s, shared with `marbles mcp`'s fuzz test.
 * The same messages then go to `foundry mcp --http` inside hostile HTTP requests (below).
 */
const RUNS = Number(process.env.FUZZ_RUNS) || 70
const SEED = Number(process.env.FUZZ_SEED) || Date.now() % 1_000_000
const TOOLS = [
  'memory_search',
  'memory_write',
  'memory_index',
  'runbook_list',
  'runbook_get',
  'contract_validate',
  'blackboard_write',
  'blackboard_read',
  'token_report',
  'memory_forget',
]
const WRITES: Record<string, ReturnType<typeof validator>> = {
  memory_write: validator(inputOf('memory_write')),
  memory_forget: validator(inputOf('memory_forget')),
  blackboard_write: validator(inputOf('blackboard_write')),
}

const messages = fuzzMessages(fc, {
  tools: TOOLS,
  argumentKeys: [
    'query',
    'title',
    'body',
    'type',
    'scope',
    'tags',
    'limit',
    'slug',
    'schema',
    'data',
    'path',
    'wave',
    'agent',
    'full',
    'version',
    'id',
    'reason',
    'supersedes',
    'source',
    'expires',
  ],
})

/** Every call that could write is made invalid (an unknown property), so it must be rejected and change nothing. */
function defanged(m: FuzzMessage): FuzzMessage {
  if (m.kind !== 'json') return m
  const value = m.value as { method?: unknown; params?: { name?: unknown; arguments?: unknown } }
  const name = value?.params?.name
  if (value?.method === 'tools/call' && typeof name === 'string' && name in WRITES) {
    return {
      kind: 'json',
      value: {
        ...value,
        params: { ...value.params, arguments: { ...(value.params!.arguments as object), 'fuzz-unknown-property': 1 } },
      },
    }
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
      toolCall(1, 'memory_write', {
        title: 'Money is stored in integer cents',
        body: 'Never floats.',
        type: 'convention',
      }),
      toolCall(2, 'blackboard_write', {
        wave: 'audit',
        agent: 'appsec-reviewer',
        schema: 'finding.v1',
        data: { title: 'T', severity: 'high', summary: 'S.', failureScenario: 'F.' },
      }),
    )
    assert.not.ok((await first.answer(1)).result?.isError)
    assert.not.ok((await first.answer(2)).result?.isError)
    const before = await storedState(root)
    let started = false
    const run = await fuzzServer(fc, {
      start: async () => (started ? startInitialized(root) : ((started = true), first)),
      messages,
      runs: RUNS,
      seed: SEED,
      prepare: defanged,
    })
    const { server, sent, probes, crashes } = run
    const exit = await server.close()
    console.log(
      `  fuzz (${storage}, seed ${SEED}): ${sent} messages in ${probes} batches, ${crashes} crashes; exit ${exit.code}; peak RSS ${server.peakRssMiB().toFixed(0)} MiB`,
    )
    if (run.failure) throw run.failure
    assert.is(exit.code, 0, server.stderr().slice(-2000))
    assert.is(crashes, 0)
    assert.is(await storedState(root), before, 'rejected calls changed nothing stored')
    assert.not.match(server.stderr(), /uncaught exception|unhandled rejection/, server.stderr().slice(-2000))
  })

  test.run()
}

/**
 * The HTTP transport (`foundry mcp --http`), fuzzed the same way: batches of generated requests, sent
 * at once over raw sockets, each with the messages above as its body (or a JSON-RPC batch of them), a
 * huge id, a method, path, token, session id, content type, Accept, Host, Origin or protocol version
 * that is wrong, a body cut short (the connection half-closed) or a Content-Length that lies, or no
 * HTTP at all. Every request must be answered or refused (the connection closed) within 15 s (0
 * hangs), and after every batch a new session must initialize and answer a tool call (0 crashes).
 * Stored data stays unchanged and SIGTERM exits 0. `FUZZ_SEED` replays it; `FUZZ_HTTP_RUNS` scales it.
 */
const HTTP_RUNS = Number(process.env.FUZZ_HTTP_RUNS) || 25
const SECRET = 'fuzz-secret-1'
const anyId = fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null), fc.double(), fc.boolean())
const hugeId = fc.oneof(
  anyId,
  fc.constantFrom(1e308, -1e308, 2 ** 64, Number.MAX_SAFE_INTEGER + 2, -0),
  fc.integer({ min: 10_000, max: 300_000 }).map((n) => '9'.repeat(n)),
)
const body: fc.Arbitrary<Buffer> = fc.oneof(
  messages.map((m) => encode(defanged(m))),
  fc
    .array(messages, { minLength: 1, maxLength: 8 })
    .map((ms) => Buffer.from(`[${ms.map((m) => encode(defanged(m)).toString().trim() || 'null').join(',')}]`)),
  fc
    .record({ id: hugeId, method: fc.constantFrom('ping', 'tools/list', 'initialize') })
    .map(({ id, method }) =>
      Buffer.from(
        `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"${method}","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
      ),
    ),
  fc.constant(Buffer.alloc(0)),
)
const header = (name: string, values: fc.Arbitrary<string | undefined>) =>
  values.map((v) => (v === undefined ? undefined : ([name, v] as const)))
const garbage = fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, ' '))
const request = fc.record({
  method: fc.constantFrom('POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT', 'OPTIONS'),
  path: fc.oneof(
    { arbitrary: fc.constant('/mcp'), weight: 8 },
    fc.constantFrom(
      '/mcp?x=1',
      '/mcp/',
      '/hooks/prompt-context',
      '/hooks/nope',
      '/ui/',
      '/ui/api/facts',
      '/nowhere',
      `/${'a'.repeat(5000)}`,
    ),
  ),
  auth: fc.oneof(
    { arbitrary: fc.constant('valid' as const), weight: 8 },
    fc.constantFrom('none' as const, 'wrong' as const, 'basic' as const, 'empty' as const),
  ),
  session: fc.oneof(
    { arbitrary: fc.constantFrom('valid' as const, 'none' as const), weight: 6 },
    fc.constantFrom('random' as const, 'garbage' as const, 'long' as const),
  ),
  headers: fc.tuple(
    header(
      'content-type',
      fc.constantFrom(
        'application/json',
        'application/json',
        'text/plain',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        undefined,
      ),
    ),
    header(
      'accept',
      fc.constantFrom(
        'application/json, text/event-stream',
        'application/json, text/event-stream',
        'text/html',
        'text/event-stream',
        undefined,
      ),
    ),
    header(
      'mcp-protocol-version',
      fc.oneof(fc.constantFrom('2025-06-18', '2025-06-18', '1999-01-01'), garbage, fc.constant(undefined)),
    ),
    header(
      'origin',
      fc.oneof({ arbitrary: fc.constant(undefined), weight: 10 }, fc.constantFrom('http://evil.example', 'null')),
    ),
    header(
      'x-filler',
      fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 12 },
        { arbitrary: fc.integer({ min: 1, max: 40_000 }).map((n) => 'f'.repeat(n)), weight: 1 },
      ),
    ),
  ),
  host: fc.oneof(
    { arbitrary: fc.constant('valid' as const), weight: 8 },
    fc.constantFrom('evil' as const, 'none' as const),
  ),
  body,
  framing: fc.oneof(
    { arbitrary: fc.constant('exact' as const), weight: 6 },
    fc.constantFrom('truncated' as const, 'understated' as const, 'chunked' as const, 'not-http' as const),
  ),
  cut: fc.double({ min: 0, max: 1, noNaN: true }),
})
type FuzzRequest = typeof request extends fc.Arbitrary<infer T> ? T : never

/** The bytes of one generated request, and whether to half-close after them (a truncated body). */
function rawRequest(r: FuzzRequest, port: number, session: string): { bytes: Buffer; end: boolean } {
  if (r.framing === 'not-http')
    return { bytes: Buffer.concat([r.body.subarray(0, 200), Buffer.from('\r\n\r\n')]), end: true }
  const auth = {
    valid: `Bearer ${SECRET}`,
    none: undefined,
    wrong: 'Bearer fdy_wrong',
    basic: 'Basic Zm9vOmJhcg==',
    empty: 'Bearer ',
  }[r.auth]
  const sid = {
    none: undefined,
    valid: session,
    random: '9b2a4c1e-0000-4000-8000-000000000000',
    garbage: 'x y\u0001z',
    long: 's'.repeat(9000),
  }[r.session]
  const host = { valid: `127.0.0.1:${port}`, evil: `evil.example:${port}`, none: undefined }[r.host]
  const lines = [`${r.method} ${r.path} HTTP/1.1`, 'connection: close']
  if (host) lines.push(`host: ${host}`)
  if (auth !== undefined) lines.push(`authorization: ${auth}`)
  if (sid !== undefined) lines.push(`mcp-session-id: ${sid.replace(/[^\x20-\x7e]/g, '?')}`)
  for (const h of r.headers) if (h) lines.push(`${h[0]}: ${h[1]}`)
  const sent = r.framing === 'truncated' ? r.body.subarray(0, Math.floor(r.body.length * r.cut)) : r.body
  let payload = sent
  if (r.framing === 'chunked') {
    lines.push('transfer-encoding: chunked')
    payload = Buffer.concat([Buffer.from(`${sent.length.toString(16)}\r\n`), sent, Buffer.from('\r\n0\r\n\r\n')])
  } else
    lines.push(`content-length: ${r.framing === 'understated' ? Math.floor(r.body.length * r.cut) : r.body.length}`)
  return {
    bytes: Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), payload]),
    end: r.framing === 'truncated',
  }
}

/** A new session, initialized over plain fetch with the token: its id, or undefined when the server did not answer well. */
async function newSession(url: string): Promise<string | undefined> {
  const headers = {
    authorization: `Bearer ${SECRET}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  }
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
    }),
  })
  await init.text()
  const id = init.headers.get('mcp-session-id')
  if (init.status !== 200 || !id) return undefined
  const more = { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }
  await (
    await fetch(url, {
      method: 'POST',
      headers: more,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
  ).text()
  const call = await fetch(url, {
    method: 'POST',
    headers: more,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'memory_search', arguments: { query: 'cents' } },
    }),
  })
  return call.status === 200 && (await call.text()).includes('"result"') ? id : undefined
}

const http = suite('fuzz: foundry mcp --http over raw sockets')
http.after(cleanup)

http(
  `${HTTP_RUNS} batches of generated requests: 0 crashes, 0 hangs, stored data unchanged (seed ${SEED})`,
  async () => {
    const root = tempDir()
    assert.is(cli(['init'], { cwd: root }).code, 0)
    const server = await startHttp(BIN, ['mcp', '--http', '--port', '0', '--root', root], {
      FOUNDRY_HOOK_SERVER: 'off',
      FOUNDRY_TOKENS: `fuzz:write:${SECRET}`,
    })
    const port = Number(new URL(server.url).port)
    const statuses = new Map<string, number>()
    let sent = 0
    let hangs = 0
    let crashes = 0
    try {
      const first = await newSession(server.url)
      assert.ok(first, 'a valid session before the fuzz')
      const before = await storedState(root)
      let session = first
      await fc.assert(
        fc.asyncProperty(fc.array(request, { minLength: 10, maxLength: 30 }), async (batch) => {
          const answers = await Promise.all(
            batch.map((r) => rawRequest(r, port, session)).map(({ bytes, end }) => rawExchange(port, bytes, end)),
          )
          sent += batch.length
          for (const a of answers) {
            if (a.hung) hangs++
            const key = String(a.status ?? 'closed')
            statuses.set(key, (statuses.get(key) ?? 0) + 1)
          }
          const fresh = server.child.exitCode === null ? await newSession(server.url).catch(() => undefined) : undefined
          if (!fresh) crashes++
          else session = fresh
          return hangs === 0 && fresh !== undefined
        }),
        { numRuns: HTTP_RUNS, seed: SEED, endOnFailure: true },
      )
      assert.is(await storedState(root), before, 'rejected calls changed nothing stored')
    } finally {
      const exit = server.child.exitCode ?? (await server.stop())
      const shown = [...statuses]
        .sort()
        .map(([k, v]) => `${k}×${v}`)
        .join(' ')
      console.log(
        `  fuzz (http, seed ${SEED}): ${sent} requests, ${hangs} hangs, ${crashes} crashes; answers ${shown}; exit ${exit}`,
      )
      assert.is(exit, 0, server.stderr().slice(-2000))
    }
    assert.is(hangs, 0)
    assert.is(crashes, 0)
    assert.not.match(server.stderr(), /uncaught exception|unhandled rejection/, server.stderr().slice(-2000))
  },
)

http.run()
