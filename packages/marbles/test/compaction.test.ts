// `compaction` reaches the harness whose CLI has a per-run setting; list_config says which have none.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readJournal } from '../src/journal/follow.js'
import { argvOf, flagValue } from './argv.js'
import { AGENTS, connectMcp, newProject, open } from './helpers.js'

test('compaction: Claude Code gets autoCompactEnabled through --settings; codex and pi have no setting, so list_config says none and the run journals it', async () => {
  const root = await newProject('fs')
  const mcp = await connectMcp(['--root', root, '--source', AGENTS])
  try {
    const config = await mcp.call('list_config')
    assert.is(config.data.compaction['claude-code'], 'autoCompactEnabled (--settings)')
    for (const provider of ['codex', 'pi', 'anthropic', 'mock'])
      assert.is(config.data.compaction[provider], 'none', provider)

    for (const compaction of [false, true]) {
      const run = await mcp.call('dispatch_agent', { prompt: 'Go.', compaction })
      assert.is((await mcp.settle(run.data.runId)).data.status, 'completed')
      const settings = flagValue(await argvOf(root, run.data.runId, 'fake-claude'), '--settings')
      assert.equal(JSON.parse(settings ?? 'null'), { autoCompactEnabled: compaction })
    }
    const plain = await mcp.call('dispatch_agent', { prompt: 'Go.' })
    await mcp.settle(plain.data.runId)
    assert.is(
      flagValue(await argvOf(root, plain.data.runId, 'fake-claude'), '--settings'),
      undefined,
      'omitted: the session defaults',
    )

    const codex = await mcp.call('dispatch_agent', { prompt: 'Go.', provider: 'codex', compaction: false })
    assert.is((await mcp.settle(codex.data.runId)).data.status, 'completed', 'accepted, not refused')
    const project = await open(root)
    const journal = await readJournal(project.storage, codex.data.runId)
    await project.close()
    assert.ok(
      journal.some(
        (r) =>
          r.type === 'log' &&
          r.message === 'compaction: the codex harness has no compaction setting; its own default applies',
      ),
    )
  } finally {
    await mcp.client.close()
  }
})

test.run()
