// A model belongs to its provider: the fake CLIs print their argv to stderr, which the run's journal keeps.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { argvOf, modelFlag } from './argv.js'
import { AGENTS, connectMcp, newProject } from './helpers.js'

test('an ad hoc codex session continues without --model default: the CLI keeps its own default', async () => {
  const root = await newProject('fs')
  const mcp = await connectMcp(['--root', root, '--source', AGENTS])
  try {
    const first = await mcp.call('dispatch_agent', { prompt: 'Start.', provider: 'codex' })
    assert.is(first.error, undefined, first.error)
    assert.is((await mcp.settle(first.data.runId)).data.status, 'completed')
    assert.is(modelFlag(await argvOf(root, first.data.runId, 'fake-codex')), undefined, 'no model named: none passed')
    const next = await mcp.call('dispatch_agent', { prompt: 'Go on.', session: first.data.session })
    assert.is(next.error, undefined, next.error)
    const done = await mcp.settle(next.data.runId)
    assert.is(done.data.status, 'completed', JSON.stringify(done.data))
    const argv = await argvOf(root, next.data.runId, 'fake-codex')
    assert.ok(argv.includes('resume'), 'the thread is resumed')
    assert.is(modelFlag(argv), undefined, `no --model default: ${JSON.stringify(argv)}`)
  } finally {
    await mcp.client.close()
  }
})

test("a declared agent's route goes only to its provider: reviewer (claude-code) on codex gets codex's default, or the model the dispatch names", async () => {
  const root = await newProject('fs')
  const mcp = await connectMcp(['--root', root, '--source', AGENTS])
  try {
    const cases: Array<[Record<string, unknown>, string, string | undefined]> = [
      [{ agent: 'reviewer', provider: 'codex' }, 'fake-codex', undefined],
      [{ agent: 'reviewer', provider: 'pi' }, 'fake-pi', undefined],
      [{ agent: 'reviewer', provider: 'codex', model: 'gpt-5-codex' }, 'fake-codex', 'gpt-5-codex'],
      [{ agent: 'reviewer' }, 'fake-claude', 'claude-sonnet-4-5'],
    ]
    for (const [args, tag, model] of cases) {
      const ack = await mcp.call('dispatch_agent', { prompt: 'Review.', ...args })
      assert.is(ack.error, undefined, ack.error)
      assert.is((await mcp.settle(ack.data.runId)).data.status, 'completed', JSON.stringify(args))
      assert.is(modelFlag(await argvOf(root, ack.data.runId, tag)), model, JSON.stringify(args))
    }
  } finally {
    await mcp.client.close()
  }
})

test.run()
