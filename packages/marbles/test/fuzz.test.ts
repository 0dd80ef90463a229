// The protocol fuzzer of `@foundry/server/testing` (the one `foundry mcp` is fuzzed with) against
// `marbles mcp` over raw stdio: seeded batches of garbage, wrong JSON-RPC shapes and tool calls with
// random and hostile arguments for the five tools (dispatch_workflow, dispatch_agent, get_run,
// cancel_run, list_config), each followed by a ping that must be answered by a live process.
// 0 crashes, 0 hangs, no stray exception, exit 0 when stdin closes. `FUZZ_SEED` replays a run;
// `FUZZ_RUNS` scales it.
import { fuzzMessages, fuzzServer, initialized, startRawServer, toolCall } from '@foundry/server/testing'
import fc from 'fast-check'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { AGENTS, BIN, HERE, newProject } from './helpers.js'

const RUNS = Number(process.env.FUZZ_RUNS) || 40
const SEED = Number(process.env.FUZZ_SEED) || Date.now() % 1_000_000

const messages = fuzzMessages(fc, {
  tools: ['dispatch_workflow', 'dispatch_agent', 'get_run', 'cancel_run', 'list_config'],
  argumentKeys: [
    'name',
    'input',
    'prompt',
    'agent',
    'instructions',
    'model',
    'provider',
    'cwd',
    'maxTurns',
    'timeoutMs',
    'compaction',
    'session',
    'contract',
    'runId',
    'cursor',
  ],
  // Names that exist, so some calls get past the schema (`waits` is left out: it runs until cancelled).
  argumentValues: [
    'hello',
    'big',
    'reviewer',
    'mock',
    'claude-code',
    'review.v1',
    '.',
    '..',
    '/',
    'run-00000000000000000000000000',
    '0',
    '99999999999',
    { who: 'fuzz' },
    { id: 'x', model: 'm', provider: 'mock' },
  ],
})

for (const storage of ['fs', 'sqlite'] as const) {
  test(`marbles mcp: ${RUNS} batches of generated messages: 0 crashes, 0 hangs (${storage}, seed ${SEED})`, async () => {
    const root = await newProject(storage)
    // Only the AI SDK's mock model is offered: no agent CLI is started.
    const start = () =>
      initialized(startRawServer(BIN, ['--root', root, '--source', AGENTS, 'mcp', '--harness', 'mock'], { cwd: HERE }))
    const first = await start()
    await first.send({ ...toolCall(0, 'dispatch_workflow', { name: 'hello', input: { who: 'fuzz' } }), id: 'before' })
    assert.not.ok((await first.answer('before')).result?.isError, 'a valid dispatch before')
    let started = false
    const run = await fuzzServer(fc, {
      start: async () => (started ? start() : ((started = true), first)),
      messages,
      runs: RUNS,
      seed: SEED,
    })
    const { server, sent, probes, crashes } = run
    try {
      // A string id no generated request uses: this answer is to this call.
      await server.send({ ...toolCall(0, 'list_config', {}), id: 'after' })
      assert.not.ok((await server.answer('after')).result?.isError, 'the server still answers a valid call')
    } finally {
      const exit = await server.close(30_000)
      console.log(
        `  fuzz marbles mcp (${storage}, seed ${SEED}): ${sent} messages in ${probes} batches, ${crashes} crashes; exit ${exit.code}; peak RSS ${server.peakRssMiB().toFixed(0)} MiB`,
      )
      if (run.failure) throw run.failure
      assert.is(crashes, 0)
      assert.is(exit.code, 0, server.stderr().slice(-2000))
    }
    assert.not.match(server.stderr(), /uncaught exception|unhandled rejection/, server.stderr().slice(-2000))
  })
}

test.run()
