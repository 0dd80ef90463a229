import type { Arbitrary } from 'fast-check'
import type fastCheck from 'fast-check'
import type { RawServer } from './raw-server.js'

/** One message a fuzzer writes: raw bytes (a newline is added) or a JSON value (one line). */
export type FuzzMessage = { kind: 'raw'; bytes: Buffer } | { kind: 'json'; value: unknown }

export interface FuzzMessageOptions {
  /** The server's tool names (calls name them, or random strings). */
  tools: readonly string[]
  /** Argument names the tools take (hostile values are put under them). */
  argumentKeys: readonly string[]
  /** Values worth trying under them beside the random ones (known names, ids, paths). */
  argumentValues?: readonly unknown[]
}

const METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'notifications/initialized',
  'notifications/cancelled',
  'prompts/list',
  'completion/complete',
  'logging/setLevel',
  '',
]
const raw = (text: string | Uint8Array): FuzzMessage => ({ kind: 'raw', bytes: Buffer.from(text as string) })
const json = (value: unknown): FuzzMessage => ({ kind: 'json', value })

/**
 * What a protocol fuzzer sends an MCP server over stdio, built on the caller's fast-check (`fc`):
 * binary garbage and text that is not JSON, JSON that is no JSON-RPC message, JSON-RPC shapes with
 * wrong types, tool calls with hostile arguments (paths, control characters, 200 KB strings, deep
 * values), resource reads, cancellations, and nesting 20 000 deep as raw text.
 */
export function fuzzMessages(fc: typeof fastCheck, options: FuzzMessageOptions): Arbitrary<FuzzMessage> {
  const anyId = fc.oneof(
    fc.integer(),
    fc.string({ maxLength: 20 }),
    fc.constant(null),
    fc.double(),
    fc.boolean(),
    fc.object({ maxDepth: 1 }),
    fc.array(fc.integer(), { maxLength: 3 }),
  )
  const hostileString = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.constantFrom(
      '../../../etc/passwd',
      '/etc/shadow',
      '/proc/self/environ',
      '/dev/zero',
      '%2e%2e%2f',
      'a\u0000b',
      '</system>',
      '${process.env}',
      '\u202e',
      'fact-99999999999999999999',
      'run-00000000000000000000000000',
    ),
    fc.integer({ min: 10_000, max: 200_000 }).map((n) => 'x'.repeat(n)),
  )
  const known = options.argumentValues?.length ? [fc.constantFrom(...options.argumentValues)] : []
  const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 4 }), hostileString, ...known)
  const toolArgs = fc.oneof(
    fc.dictionary(fc.constantFrom(...options.argumentKeys), anyValue, { maxKeys: 6 }),
    fc.dictionary(fc.string({ maxLength: 10 }), anyValue, { maxKeys: 4 }),
    anyValue,
  )
  return fc.oneof(
    fc.uint8Array({ maxLength: 512 }).map((bytes) => raw(bytes)),
    fc.string({ maxLength: 300 }).map((s) => raw(s.replace(/\n/g, ' '))),
    fc.jsonValue({ maxDepth: 5 }).map(json),
    fc
      .record(
        {
          jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.integer(), fc.constant(null)),
          id: anyId,
          method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 30 }), fc.integer()),
          params: anyValue,
        },
        { requiredKeys: [] },
      )
      .map(json),
    fc
      .record({
        id: fc.oneof(fc.integer({ min: 1 }), fc.string({ maxLength: 10 })),
        name: fc.oneof(fc.constantFrom(...options.tools), fc.string({ maxLength: 40 })),
        args: toolArgs,
      })
      .map(({ id, name, args }) =>
        json({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
      ),
    fc
      .record({ id: fc.integer({ min: 1 }), uri: hostileString })
      .map(({ id, uri }) => json({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri } })),
    fc
      .record({ requestId: anyId })
      .map((params) => json({ jsonrpc: '2.0', method: 'notifications/cancelled', params })),
    // deep nesting, as raw text (JSON.stringify itself overflows on it)
    fc
      .integer({ min: 100, max: 20_000 })
      .map((depth) =>
        raw(
          `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${options.tools[0]}","arguments":{"input":${'['.repeat(depth)}${']'.repeat(depth)}}}}`,
        ),
      ),
    fc.integer({ min: 100, max: 20_000 }).map((depth) => raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)),
  )
}

export const encodeMessage = (m: FuzzMessage): Buffer =>
  m.kind === 'raw' ? Buffer.concat([m.bytes, Buffer.from('\n')]) : Buffer.from(`${JSON.stringify(m.value)}\n`)

export interface FuzzRunOptions {
  /** Start (or restart, after a crash) the server, initialized. */
  start(): Promise<RawServer>
  messages: Arbitrary<FuzzMessage>
  /** Batches to send. */
  runs: number
  seed: number
  /** Change a message before it is sent (make a writing call invalid on purpose). */
  prepare?: (m: FuzzMessage) => FuzzMessage
  /** How long a batch's ping may take to be answered before it counts as a hang. Default 15 000 ms. */
  probeMs?: number
}

export interface FuzzRun {
  server: RawServer
  sent: number
  probes: number
  crashes: number
  /** The first failure fast-check reported (with its seed and counterexample), if any. */
  failure?: unknown
}

/**
 * Write batches of 20–60 generated messages, then a ping that must be answered (no hang) by a live
 * process (no crash); stops at the first failure. The caller closes `server` and asserts.
 */
export async function fuzzServer(fc: typeof fastCheck, options: FuzzRunOptions): Promise<FuzzRun> {
  const run: FuzzRun = { server: await options.start(), sent: 0, probes: 0, crashes: 0 }
  const prepare = options.prepare ?? ((m: FuzzMessage) => m)
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(options.messages, { minLength: 20, maxLength: 60, size: 'max' }), async (batch) => {
        if (!run.server.alive()) run.server = await options.start()
        for (const m of batch) await run.server.write(encodeMessage(prepare(m)))
        run.sent += batch.length
        const probe = `probe-${++run.probes}`
        await run.server.send({ jsonrpc: '2.0', id: probe, method: 'ping' })
        const answered = await run.server.answer(probe, options.probeMs ?? 15_000).then(
          (answer) => 'result' in answer,
          () => false,
        )
        if (!run.server.alive()) run.crashes++
        return answered && run.server.alive()
      }),
      { numRuns: options.runs, seed: options.seed, endOnFailure: true },
    )
  } catch (error) {
    run.failure = error
  }
  return run
}
