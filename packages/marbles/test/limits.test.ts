// Concurrency keys and rate limits per workflow, through the built bin: held runs stay queued and say why.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestDatabase } from '@foundry/adapter-postgres/testing'
import { HERE, kill, marbles, newProject, start, STORAGES, until } from './helpers.js'
import { pgProject } from './pg-helpers.js'

const LIMITED = join(HERE, 'fixtures', 'ops', 'limited.ts')
type Listed = { id: string; name: string; status: string; reason?: string }

/** Serve the project with `serves` processes; dispatch from other processes; check the limits held across them. */
async function limitsHold(root: string, serves: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'marbles-limits-'))
  const servers = Array.from({ length: serves }, () => start(['--root', root, '--source', LIMITED, 'serve']))
  const bin = (...args: string[]) => marbles(['--root', root, '--source', LIMITED, ...args])
  const runs = (...args: string[]) =>
    (JSON.parse(bin('--json', 'runs', '--limit', '100', ...args).stdout) as { runs: Listed[] }).runs
  try {
    await until(() => servers.every((s) => s.output().stderr.includes('marbles serve:')), 60_000, 'serve to start')
    const dispatch = (name: string, input: object = {}) => {
      const r = bin('run', name, '--detach', '--input', JSON.stringify(input))
      assert.is(r.code, 0, r.stderr)
      return r.stdout.trim()
    }
    const acme = [
      dispatch('limited', { dir, customer: 'acme' }),
      dispatch('limited', { dir, customer: 'acme' }),
      dispatch('limited', { dir, customer: 'acme' }),
    ]
    const globex = dispatch('limited', { dir, customer: 'globex' })
    const held = await until(
      () => {
        const queued = runs('--status', 'queued', '--workflow', 'limited')
        return (
          queued.length === 2 &&
          queued.every((r) => /waiting: concurrency limit 1 for key "acme" reached/.test(r.reason ?? '')) &&
          queued
        )
      },
      60_000,
      'two acme runs held, with the reason',
    )
    assert.ok(held.every((r) => acme.includes(r.id)))
    await until(() => runs('--status', 'running').some((r) => r.id === globex), 60_000, 'globex to run beside acme')
    writeFileSync(join(dir, 'go'), '')
    for (const id of [...acme, globex]) {
      const watched = bin('--json', 'watch', id)
      assert.is(watched.code, 0, watched.stderr)
      const result = watched.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .find((r) => r.type === 'result')
      assert.is(result.output, 1, `run ${id} ran beside another run of its customer`)
    }

    const rated = [dispatch('rated'), dispatch('rated'), dispatch('rated')]
    const waiting = await until(
      () => {
        const listed = runs('--workflow', 'rated')
        // A held run is queued at dispatch; the engine records why when it holds it (a moment later).
        const held = listed.find((r) => r.status === 'queued' && r.reason)
        return listed.filter((r) => r.status === 'complete').length === 2 && held
      },
      60_000,
      'two rated runs complete, the third held with its reason',
    )
    assert.ok(rated.includes(waiting.id))
    assert.match(waiting.reason ?? '', /waiting: rate limit 2 per 3600000 ms reached/)
  } finally {
    for (const s of servers) kill(s.child)
    await Promise.all(servers.map((s) => s.exited))
  }
}

for (const kind of STORAGES)
  test(`${kind}: concurrency per key and a rate limit hold; held runs are queued with the reason`, async () =>
    limitsHold(await newProject(kind), 1))

test('postgres: two marbles serve (both workers) never exceed the limits between them', async () => {
  const server = await startTestDatabase()
  try {
    await limitsHold(await pgProject(server.url), 2)
  } finally {
    await server.stop()
  }
})

test('a limit that is not a whole number is refused at declaration, naming the workflow and the field', async () => {
  const { workflow } = await import('../src/define/workflow.js')
  assert.throws(
    () => workflow({ name: 'w', concurrency: { limit: 0 }, run: () => 1 }),
    /w: concurrency.limit must be a whole number of at least 1; got 0/,
  )
  assert.throws(
    () => workflow({ name: 'w', rateLimit: { limit: 1, periodMs: 'soon' }, run: () => 1 }),
    /w: rateLimit.periodMs must be milliseconds/,
  )
})

test.run()
