// Idempotency keys through the built bin and `marbles mcp`: the same key and workflow give the same run.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { AGENTS, BASIC, connectMcp, marbles, newProject, STORAGES } from './helpers.js'

const runsOf = (root: string) =>
  (JSON.parse(marbles(['--root', root, '--json', 'runs']).stdout) as { runs: Array<{ id: string; name: string }> }).runs

for (const kind of STORAGES) {
  test(`${kind}: marbles run --idempotency-key twice makes one run; another workflow or key makes its own`, async () => {
    const root = await newProject(kind)
    const run = (name: string, key: string, input = { who: 'ada' }) =>
      marbles([
        '--root',
        root,
        '--source',
        BASIC,
        'run',
        name,
        '--input',
        JSON.stringify(input),
        '--idempotency-key',
        key,
      ])
    const first = run('hello', 'order-42')
    assert.is(first.code, 0, first.stderr)
    const again = run('hello', 'order-42', { who: 'someone else' })
    assert.is(again.code, 0, again.stderr)
    assert.is(again.stdout.split('\n')[0], first.stdout.split('\n')[0], 'the same run id')
    assert.match(again.stdout, /hello ada/, "the first run's output, not a second run's")
    const other = run('hello', 'order-43')
    assert.is.not(other.stdout.split('\n')[0], first.stdout.split('\n')[0])
    assert.is(runsOf(root).length, 2)
    const bad = run('hello', 'x'.repeat(201))
    assert.is(bad.code, 1)
    assert.match(bad.stderr, /^error: --idempotency-key must be a string of 1 to 200 characters/)
  })
}

test('marbles mcp: dispatch_workflow and dispatch_agent with an idempotencyKey answer the same run (and session) again', async () => {
  const root = await newProject('sqlite')
  const mcp = await connectMcp(['--root', root, '--source', BASIC])
  try {
    const a = await mcp.call('dispatch_workflow', { name: 'hello', input: { who: 'ada' }, idempotencyKey: 'k1' })
    assert.not.ok(a.error, a.error)
    const b = await mcp.call('dispatch_workflow', { name: 'hello', input: { who: 'ada' }, idempotencyKey: 'k1' })
    assert.is(b.data.runId, a.data.runId)
    const c = await mcp.call('dispatch_workflow', { name: 'hello', input: { who: 'ada' } })
    assert.is.not(c.data.runId, a.data.runId)
    assert.is((await mcp.settle(a.data.runId)).data.status, 'completed')
    assert.is(
      (await mcp.call('dispatch_workflow', { name: 'hello', input: { who: 'ada' }, idempotencyKey: 'k1' })).data.status,
      'completed',
      'the first run, as it stands',
    )
  } finally {
    await mcp.client.close()
  }
  const agents = await connectMcp(['--root', root, '--source', AGENTS])
  try {
    const a = await agents.call('dispatch_agent', { prompt: 'Say hi', provider: 'mock', idempotencyKey: 'ask-1' })
    assert.not.ok(a.error, a.error)
    const b = await agents.call('dispatch_agent', { prompt: 'Say hi', provider: 'mock', idempotencyKey: 'ask-1' })
    assert.is(b.data.runId, a.data.runId)
    assert.equal(b.data.session, a.data.session, 'the first dispatch’s session')
    assert.is((await agents.settle(a.data.runId)).data.status, 'completed')
  } finally {
    await agents.client.close()
  }
  assert.is(runsOf(root).length, 3, 'two workflow runs and one agent run')
})

test.run()
