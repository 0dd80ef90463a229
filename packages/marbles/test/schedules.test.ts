// Schedules fire once a tick however many processes serve one project: two real `marbles serve`.
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { startTestDatabase } from '@foundry/adapter-postgres/testing'
import { HERE, kill, marbles, newProject, start, STORAGES, until } from './helpers.js'
import { pgProject } from './pg-helpers.js'

const SCHEDULE = join(HERE, 'fixtures', 'ops', 'schedule.ts')
const TICKS = 4

/** Each tick both processes logged, with the run ids they logged for it. */
function ticks(...stderrs: string[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>()
  for (const text of stderrs)
    for (const m of text.matchAll(/schedule every-second \(tick ([^)]+)\): (?:already )?dispatched tick as (run-\w+)/g))
      out.set(m[1]!, (out.get(m[1]!) ?? new Set()).add(m[2]!))
  return out
}

/**
 * Serve the project twice at once until `TICKS` + 1 ticks have fired, then stop both: every tick made
 * exactly one run, and the runs are the ticks. (On a lease state the second serve may be refused
 * while the first owns it: then the first alone fires.)
 */
async function servedTwice(root: string): Promise<void> {
  const a = start(['--root', root, '--source', SCHEDULE, 'serve'])
  const b = start(['--root', root, '--source', SCHEDULE, 'serve'])
  try {
    await until(() => ticks(a.output().stderr, b.output().stderr).size >= TICKS + 1, 60_000, `${TICKS + 1} ticks`)
  } finally {
    kill(a.child)
    kill(b.child)
  }
  const [ea, eb] = await Promise.all([a.exited, b.exited])
  const seen = ticks(ea.stderr, eb.stderr)
  for (const [tick, runs] of seen)
    assert.is(runs.size, 1, `tick ${tick} made ${runs.size} runs: ${[...runs].join(', ')}`)
  const listed = JSON.parse(
    marbles(['--root', root, '--json', 'runs', '--workflow', 'tick', '--limit', '1000']).stdout,
  ) as { runs: Array<{ id: string }> }
  const fromTicks = new Set([...seen.values()].flatMap((runs) => [...runs]))
  const ids = new Set(listed.runs.map((r) => r.id))
  for (const id of fromTicks) assert.ok(ids.has(id), `${id} is a run`)
  // A process stopped between a dispatch and its log line leaves one run no line names.
  assert.ok(
    ids.size <= seen.size + 1,
    `one run a tick: ${ids.size} runs for ${seen.size} ticks\n${ea.stderr}\n${eb.stderr}`,
  )
}

for (const kind of STORAGES)
  test(`${kind}: two marbles serve on one project make one run a tick`, async () => {
    await servedTwice(await newProject(kind))
  })

test('postgres: two marbles serve on one database (both workers) make one run a tick', async () => {
  const server = await startTestDatabase()
  try {
    await servedTwice(await pgProject(server.url))
  } finally {
    await server.stop()
  }
})

test.run()
