// Finding the project from elsewhere: `--source` inside it (walking up), `--root`, then the working directory.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { connectMcp, HERE, marbles, newProject, STORAGES } from './helpers.js'

const AUTHORING = join(HERE, '..', 'dist', 'index.js')

/** A project with its workspace in `.foundry/marbles/`, and an empty folder outside it. */
async function projectWithWorkspace(kind: 'fs' | 'sqlite') {
  const root = realpathSync(await newProject(kind))
  const source = join(root, '.foundry', 'marbles')
  mkdirSync(source, { recursive: true })
  writeFileSync(
    join(source, 'flows.mjs'),
    `import { workflow } from ${JSON.stringify(AUTHORING)}\nexport const hello = workflow({ name: 'hello', run: () => ({ greeting: 'hello' }) })\n`,
  )
  const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'marbles-elsewhere-')))
  return { root, source, elsewhere }
}

for (const kind of STORAGES) {
  test(`${kind}: marbles --source <project>/.foundry/marbles mcp, started in an empty folder, finds the project from --source`, async () => {
    const { root, source, elsewhere } = await projectWithWorkspace(kind)
    const mcp = await connectMcp(['--source', source], { cwd: elsewhere })
    try {
      const config = await mcp.call('list_config')
      assert.is(config.error, undefined, config.error)
      assert.is(config.data.root, root, 'the project above --source, not the working directory')
      const done = await mcp.settle((await mcp.call('dispatch_workflow', { name: 'hello' })).data.runId)
      assert.is(done.data.status, 'completed')
      const watched = marbles(['--source', source, 'watch', done.data.runId], { cwd: elsewhere })
      assert.is(watched.code, 0, watched.stderr)
      assert.match(
        watched.stdout,
        /result: \{"greeting":"hello"\}/,
        'its journal is in the project found from --source',
      )
    } finally {
      await mcp.client.close()
    }
  })

  test(`${kind}: marbles watch <runId> outside the project: --root, --source, FOUNDRY_ROOT find it; without them one line naming --root`, async () => {
    const { root, source, elsewhere } = await projectWithWorkspace(kind)
    const run = marbles(['run', 'hello'], { cwd: join(root, '.foundry') })
    assert.is(run.code, 0, run.stderr)
    const runId = run.stdout.trim().split('\n')[0]!
    for (const [args, env] of [
      [['--root', root], {}],
      [['--source', source], {}],
      [[], { FOUNDRY_ROOT: root }],
    ] as const) {
      const watched = marbles([...args, 'watch', runId], { cwd: elsewhere, env })
      assert.is(watched.code, 0, `${args.join(' ')}: ${watched.stderr}`)
      assert.match(watched.stdout, new RegExp(`run ${runId} complete`))
    }
    const lost = marbles(['watch', runId], { cwd: elsewhere, env: { FOUNDRY_ROOT: '' } })
    assert.is(lost.code, 1)
    assert.is(lost.stdout, '')
    assert.is(lost.stderr.trim().split('\n').length, 1, lost.stderr)
    assert.match(lost.stderr, /^error: .*--root/)
  })
}

test.run()
