import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { serveConsole } from '../src/index.js'
import type { FactsAnswer } from '../src/wire.js'
import { cleanup, fillProject, tempProject } from './helpers.js'

test.after(cleanup)

const listed = async (url: string): Promise<FactsAnswer> =>
  (await fetch(`${url}api/facts`)).json() as Promise<FactsAnswer>

test('a long listing holds the newest 100 facts and the total; a write by another handle shows on the next one', async () => {
  const root = await tempProject()
  const filled = await fillProject(root)
  await filled.project.kernel.memory.writeMany(
    Array.from({ length: 150 }, (_, i) => ({
      title: `Service ${i} listens on port ${9000 + i}`,
      body: `The service number ${i} answers on port ${9000 + i}.`,
      type: 'convention',
    })),
  )
  const all = await filled.project.kernel.memory.list()
  const server = await serveConsole({ root, port: 0 })
  try {
    const first = await listed(server.url)
    assert.is(first.mode, 'list')
    assert.is(first.total, all.length)
    assert.equal(
      first.facts.map((f) => f.id),
      all
        .slice(-100)
        .reverse()
        .map((f) => f.id),
      'the newest 100, newest first',
    )
    const again = await fetch(`${server.url}api/facts`)
    assert.equal(await again.json(), first, 'the same listing while nothing changed')
    assert.match(again.headers.get('server-timing') ?? '', /^route;dur=\d+\.\d\d$/, "the route's time, for devtools")

    const written = await filled.project.kernel.memory.write({
      title: 'Deploys stop at 17:00 UTC on Fridays',
      body: 'No deploy after 17:00 UTC on a Friday.',
      type: 'constraint',
    })
    const next = await listed(server.url)
    assert.is(next.facts[0]?.id, written.id, 'the new fact comes first')
    assert.is(next.total, all.length + 1)
    assert.is(next.facts.length, 100)
  } finally {
    await server.close()
    await filled.project.close()
  }
})

test.run()
