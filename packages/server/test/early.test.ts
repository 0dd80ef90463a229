// A stdio server's first calls, answered by its transport before the SDK's Server loads (`early`),
// and the Server built on the same calls afterwards: a real process over raw stdio.
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { startRawServer, type RawServer } from '../src/testing/raw-server.js'

const SERVER = fileURLToPath(new URL('./fixtures/early-server.mjs', import.meta.url))

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'early-test', version: '1.0.0' } },
}
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' }
const call = (id: number, name: string, extra: object = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {}, ...extra },
})

/** The fixture server, its handshake answered. */
async function started(env: Record<string, string> = {}): Promise<RawServer> {
  const server = startRawServer(SERVER, [], { env })
  await server.send(INITIALIZE)
  const answer = await server.answer(1)
  assert.equal(answer.result.serverInfo, { name: 'early', version: '1.0.0' })
  return server
}

test('a plain call read before the Server loads is answered by the transport, as the Server answers it', async () => {
  const server = await started({ QUIET_MS: '60000' })
  try {
    await server.send(INITIALIZED, call(2, 'where'))
    const early = await server.answer(2)
    assert.equal(early.result.structuredContent, { server: false, holding: 0 }, 'answered before the Server loaded')
    // tools/list is the Server's alone: held, it loads the Server at once, whatever the quiet wait.
    await server.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' })
    assert.equal((await server.answer(3)).result.tools.length, 3)
    await server.send(call(4, 'where'))
    const late = await server.answer(4)
    assert.equal(late.result.structuredContent, { server: true, holding: 0 })
    assert.equal(Object.keys(early.result).sort(), Object.keys(late.result).sort(), 'the same shape either way')
    assert.equal(early.result.content, [{ type: 'text', text: 'here' }])
    assert.equal(late.result.content, early.result.content)
    assert.is(server.received().filter((m) => m.id === 1).length, 1, 'initialize answered once')
  } finally {
    await server.close()
  }
})

test('once the client is quiet the Server loads, and answers the next call', async () => {
  const server = await started({ QUIET_MS: '50' })
  try {
    await server.send(INITIALIZED, call(2, 'where'))
    assert.is((await server.answer(2)).result.structuredContent.server, false)
    // Each call asked 100 ms after the last answer: the client is quiet longer than 50 ms in between.
    let loaded = false
    for (let id = 3; id < 200 && !loaded; id++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      await server.send(call(id, 'where'))
      loaded = (await server.answer(id)).result.structuredContent.server
    }
    assert.ok(loaded, 'the Server loaded once the client was quiet')
  } finally {
    await server.close()
  }
})

test('a call with more than a name and arguments (a _meta, a task) waits for the Server', async () => {
  for (const extra of [{ _meta: { progressToken: 'p' } }, { task: { ttl: 1000 } }, { other: 1 }]) {
    const server = await started({ QUIET_MS: '60000' })
    try {
      await server.send(INITIALIZED, call(2, 'where', extra))
      const answer = await server.answer(2)
      assert.is(answer.result?.structuredContent?.server ?? true, true, JSON.stringify(extra))
    } finally {
      await server.close()
    }
  }
})

test('an early call cancelled before its answer is never answered; the calls after it are', async () => {
  const server = await started({ QUIET_MS: '60000' })
  try {
    await server.send(
      INITIALIZED,
      call(2, 'hold'),
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'changed my mind' } },
      call(3, 'release'),
    )
    assert.is((await server.answer(3)).result.structuredContent.server, false)
    await server.send({ jsonrpc: '2.0', id: 4, method: 'ping' })
    assert.equal((await server.answer(4)).result, {})
    assert.is(server.received().filter((m) => m.id === 2).length, 0, 'no answer to the cancelled call')
  } finally {
    await server.close()
  }
})

test('a call sent with initialize, before its answer: answered after it, by the Server', async () => {
  // initialize is answered 300 ms after it is read: the held call loads the Server well before that.
  const server = startRawServer(SERVER, [], { env: { QUIET_MS: '60000', READY_MS: '300' } })
  try {
    await server.send(INITIALIZE, INITIALIZED, call(2, 'where'))
    assert.is((await server.answer(2)).result.structuredContent.server, true)
    assert.equal(
      server.received().map((m) => m.id),
      [1, 2],
      'the initialize answer first',
    )
  } finally {
    await server.close()
  }
})

test('stdin ending right after an early call: the call is answered, then the process exits 0', async () => {
  const server = await started({ QUIET_MS: '60000' })
  await server.send(INITIALIZED, call(2, 'where'))
  server.child.stdin.end()
  assert.is((await server.answer(2)).result.structuredContent.server, false)
  assert.equal(await server.exited, { code: 0, signal: null })
})

test('early calls and the Server share one bound: past it, a call is refused as busy, before any work', async () => {
  const server = await started({ QUIET_MS: '60000', RUNNING: '1', WAITING: '0' })
  try {
    await server.send(INITIALIZED, call(2, 'hold'), call(3, 'where'))
    const refused = await server.answer(3)
    assert.is(refused.result.isError, true)
    assert.match(refused.result.content[0].text, /^where refused: the server is busy/)
    // The Server, loaded by tools/list, refuses too while the early hold runs.
    await server.send({ jsonrpc: '2.0', id: 4, method: 'tools/list' }, call(5, 'where'))
    await server.answer(4)
    assert.match((await server.answer(5)).result.content[0].text, /^where refused: the server is busy/)
  } finally {
    // `hold` holds the only slot: nothing can release it.
    server.child.kill('SIGKILL')
    await server.exited
  }
})

test.run()
