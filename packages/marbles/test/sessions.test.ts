// An agent session is free again as soon as its run completes: a continuation right after is never refused.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { AGENTS, connectMcp, newProject, STORAGES } from './helpers.js'

for (const kind of STORAGES) {
  test(`${kind}: continuing a session right after its run completed, 20 times in a row, is never refused "in use"`, async () => {
    const root = await newProject(kind)
    const mcp = await connectMcp(['--root', root, '--source', AGENTS])
    try {
      const first = await mcp.call('dispatch_agent', { agent: 'reviewer', prompt: 'Start the review.' })
      assert.is(first.error, undefined, first.error)
      let session = first.data.session
      assert.is((await mcp.settle(first.data.runId)).data.status, 'completed')
      for (let i = 0; i < 20; i++) {
        const next = await mcp.call('dispatch_agent', { prompt: `Go on (${i}).`, session })
        assert.is(next.error, undefined, `continuation ${i}: ${next.error}`)
        const done = await mcp.settle(next.data.runId)
        assert.is(done.data.status, 'completed', JSON.stringify(done.data))
        assert.is(done.data.session.id, session.id, 'the same conversation')
        session = done.data.session
      }
    } finally {
      await mcp.client.close()
    }
  })
}

test.run()
