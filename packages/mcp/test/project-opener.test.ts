// The services beside the project (the app's hook server) start once the project is open and the
// server says it is ready for them (stdio: the requests waiting are answered), never before.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { initProject, openProject, type Project } from '@foundry/project'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { projectOpener } from '../src/project-opener.js'

test('beside services wait for ready after the project opened, start once, and are closed before the project', async () => {
  const root = mkdtempSync(join(tmpdir(), 'foundry-opener-'))
  try {
    await initProject({ root, storage: 'fs' })
    const events: string[] = []
    let letThemStart = () => {}
    const ready = new Promise<void>((resolve) => (letThemStart = resolve))
    const opener = projectOpener(() => openProject({ root }), {
      beside: [
        async (project: Project) => {
          events.push(`started on ${project.root === root ? 'the project' : project.root}`)
          return { close: async () => void events.push('service closed') }
        },
      ],
      ready: () => {
        events.push('asked whether ready')
        return ready
      },
      log: (line) => events.push(`log: ${line}`),
    })
    const project = await opener.open()
    assert.is(project, await opener.open(), 'one project for every caller')
    const facts = await project.kernel.memory.search({ query: 'anything' })
    assert.is(facts.hits.length, 0, 'the project answers while the services wait')
    assert.equal(events, ['asked whether ready'], 'nothing started before ready')
    letThemStart()
    await ready
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(events, ['asked whether ready', 'started on the project'])
    await opener.close()
    assert.equal(events, ['asked whether ready', 'started on the project', 'service closed'])
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

test('a server that closes before it is ready starts no service, and its close does not wait for ready', async () => {
  const root = mkdtempSync(join(tmpdir(), 'foundry-opener-'))
  try {
    await initProject({ root, storage: 'fs' })
    let started = 0
    const opener = projectOpener(() => openProject({ root }), {
      beside: [async () => (started++, undefined)],
      ready: () => new Promise(() => {}), // never
      log: () => {},
    })
    await opener.open()
    await opener.close()
    assert.is(started, 0)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})

test.run()
