// Many runs cancelled and read at once, and control requests whose handling fails: every run reaches a
// terminal state, and a failure of the owner's request handler is journaled and logged, never swallowed.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { FoundryError, type Storage } from '@foundry/kernel'
import { defineWorkspace } from '../src/define/registry.js'
import { workflow } from '../src/define/workflow.js'
import { openEngine } from '../src/engine/engine.js'
import { readJournal } from '../src/journal/follow.js'
import { isTerminal, type JournalRecord } from '../src/journal/records.js'
import { newProject, open, until } from './helpers.js'

test('20 runs, 3 cancelled and read at once: every run reaches a terminal state', async () => {
  const project = await open(await newProject('fs'))
  const definitions = defineWorkspace(
    workflow({
      name: 'short',
      async run(ctx) {
        await ctx.step('one', () => 1)
        return ctx.step('two', () => 2)
      },
    }),
  )
  const engine = await openEngine({ storage: project.storage, kernel: project.kernel, definitions })
  try {
    const ids = await Promise.all(Array.from({ length: 20 }, async () => (await engine.dispatch('short')).runId))
    await Promise.all([...ids.slice(0, 3).map((id) => engine.cancel(id)), engine.get(ids[0]!), engine.runs()])
    const ends = await Promise.all(ids.map((id) => engine.settled(id, AbortSignal.timeout(20_000))))
    assert.equal(
      ends.filter((info) => !info || !isTerminal(info.status)).map((info) => info?.status),
      [],
    )
  } finally {
    await engine.close()
    await project.close()
  }
})

test('a control request the owner fails to handle: the error is journaled in the run and logged, not swallowed', async () => {
  const project = await open(await newProject('fs'))
  let failed = false
  // The owner's storage refuses its first cancel_requested record (a full disk, say).
  const faulty: Storage = {
    ...project.storage,
    appendLog(log, entries) {
      if (!failed && entries.some((entry) => entry.includes('"status":"cancel_requested"'))) {
        failed = true
        return Promise.reject(new FoundryError('UNAVAILABLE', 'the disk is full'))
      }
      return project.storage.appendLog(log, entries)
    },
  }
  const definitions = defineWorkspace(
    workflow({
      name: 'naps',
      async run(ctx) {
        await ctx.sleep('nap', 3_600_000)
        return 'rested'
      },
    }),
  )
  const warnings: string[] = []
  const onWarning = (warning: Error) => void warnings.push(warning.message)
  process.on('warning', onWarning)
  const owner = await openEngine({ storage: faulty, kernel: project.kernel, definitions })
  const reader = await openEngine({ storage: project.storage, kernel: project.kernel, definitions, role: 'reader' })
  try {
    assert.ok(owner.owner && !reader.owner)
    const { runId } = await owner.dispatch('naps')
    await until(async () => (await owner.get(runId))?.status === 'suspended', 10_000, 'the run to suspend')
    await reader.cancel(runId) // through the control log: the owner's handler fails
    const logged = await until(
      async () =>
        (await readJournal(project.storage, runId)).find(
          (r): r is Extract<JournalRecord, { type: 'log' }> => r.type === 'log' && r.level === 'error',
        ),
      10_000,
      'the error in the journal',
    )
    assert.match(logged.message, /cancel/)
    assert.match(logged.message, /the disk is full/)
    await until(() => warnings.some((w) => w.includes(runId) && w.includes('the disk is full')), 10_000, 'the warning')
    assert.is((await owner.get(runId))?.status, 'suspended')
  } finally {
    process.off('warning', onWarning)
    await reader.close()
    await owner.close()
    await project.close()
  }
})

test.run()
