// The lease holder's cap on runs at once, through the built bin: `marbles serve --concurrency N`.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { HERE, kill, marbles, newProject, start, STORAGES, until } from './helpers.js'

const GATED = join(HERE, 'fixtures', 'ops', 'gated.ts')

for (const kind of STORAGES) {
  test(`${kind}: serve --concurrency 2 runs two at once; the others wait their turn, in dispatch order`, async () => {
    const root = await newProject(kind)
    const dir = mkdtempSync(join(tmpdir(), 'marbles-gate-'))
    const serve = start(['--root', root, '--source', GATED, 'serve', '--concurrency', '2'])
    try {
      await until(() => serve.output().stderr.includes('marbles serve:'), 30_000, 'serve to start')
      const ids: string[] = []
      for (let i = 0; i < 5; i++) {
        const r = marbles([
          '--root',
          root,
          '--source',
          GATED,
          'run',
          'gated',
          '--detach',
          '--input',
          JSON.stringify({ dir }),
        ])
        assert.is(r.code, 0, r.stderr)
        ids.push(r.stdout.trim())
      }
      await until(() => readdirSync(dir).filter((f) => f.startsWith('run-')).length >= 2, 30_000, 'two runs to start')
      const listed = JSON.parse(marbles(['--root', root, '--json', 'runs']).stdout) as {
        runs: Array<{ id: string; status: string }>
      }
      const waiting = listed.runs.filter((r) => r.status === 'queued').map((r) => r.id)
      assert.ok(waiting.length >= 3, `three runs wait: ${JSON.stringify(listed.runs)}`)
      writeFileSync(join(dir, 'go'), '')
      for (const id of ids) {
        const watched = marbles(['--root', root, '--json', 'watch', id])
        assert.is(watched.code, 0, watched.stderr)
        const last = watched.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l))
          .find((r) => r.type === 'result')
        assert.ok(last.output <= 2, `run ${id} started beside ${last.output - 1} others`)
      }
      // Two at a time, in dispatch order (the two of one wave start together, in either order).
      const order = readFileSync(join(dir, 'order'), 'utf8').trim().split('\n')
      const waves = (list: string[]) => [list.slice(0, 2).sort(), list.slice(2, 4).sort(), list.slice(4)]
      assert.equal(waves(order), waves(ids), 'started in dispatch order')
    } finally {
      kill(serve.child)
      await serve.exited
    }
  })
}

test('serve --concurrency 0 is refused with one line naming the flag', async () => {
  const root = await newProject('fs')
  const r = marbles(['--root', root, '--source', GATED, 'serve', '--concurrency', '0'])
  assert.is(r.code, 1)
  assert.match(r.stderr, /--concurrency must be a positive integer/)
  assert.not.ok(existsSync(join(root, '.foundry', 'data', 'marbles.runs')))
})

test.run()
