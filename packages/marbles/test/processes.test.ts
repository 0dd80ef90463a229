// Real child processes: the built `marbles` bin serving, watching and being killed, on both storages.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openEngine } from '../src/engine/engine.js'
import { readJournal } from '../src/journal/follow.js'
import type { JournalRecord } from '../src/journal/records.js'
import { BASIC, basicDefinitions, kill, marbles, newProject, open, start, STORAGES, until } from './helpers.js'

for (const kind of STORAGES) {
  test(`${kind}: SIGKILL of the engine process; the next engine marks its run failed (interrupted), and resumes a resumable one in a linked run`, async () => {
    const root = await newProject(kind)
    const serve = start(['--root', root, '--source', BASIC, 'serve'])
    const project = await open(root)
    try {
      await until(() => serve.output().stderr.includes('marbles serve:'), 15_000, 'serve to start')
      const reader = await openEngine({
        storage: project.storage,
        kernel: project.kernel,
        definitions: await basicDefinitions(),
      })
      assert.not.ok(reader.owner, 'serve owns the state')
      const plain = (await reader.dispatch('slow', { ms: 60_000 })).runId
      const resumable = (await reader.dispatch('resumable', { ms: 300 })).runId
      await until(
        async () =>
          (await reader.get(plain))?.status === 'running' &&
          (await readJournal(project.storage, resumable)).some(
            (r) => r.type === 'step' && r.step === 'long' && r.phase === 'start',
          ),
        15_000,
        'both runs to run',
      )
      await reader.close()
      serve.child.kill('SIGKILL')
      const { signal } = await serve.exited
      assert.is(signal, 'SIGKILL')
      assert.is((await reader.get(plain))?.status, 'running', 'left running by the dead process')

      const engine = await openEngine({
        storage: project.storage,
        kernel: project.kernel,
        definitions: await basicDefinitions(),
        role: 'owner',
      })
      try {
        const failed = await engine.get(plain)
        assert.is(failed?.status, 'failed')
        assert.is(failed?.reason, 'interrupted')
        assert.is(failed?.error?.name, 'Interrupted')
        const old = await engine.get(resumable)
        assert.is(old?.status, 'failed')
        assert.ok(old?.resumedBy, 'linked to the run resuming it')
        const linked = await engine.settled(old!.resumedBy!)
        assert.is(linked?.status, 'complete')
        assert.is(linked?.resumes, resumable)
        const output = linked!.output as { first: string; second: string }
        assert.is(
          output.first,
          `first at ${serve.child.pid}`,
          'the finished step is replayed from the dead run, not run again',
        )
        assert.is(output.second, `second at ${process.pid}`)
        const replayed = (await readJournal(project.storage, linked!.id)).find(
          (r) => r.type === 'step' && r.step === 'first',
        )
        assert.ok(replayed?.type === 'step' && replayed.replayed)
      } finally {
        await engine.close()
      }
    } finally {
      kill(serve.child, 'SIGKILL')
      await project.close()
    }
  })

  test(`${kind}: a watcher in another process joining mid-run replays and follows in exact order, without duplicates; then exits 0`, async () => {
    const root = await newProject(kind)
    const project = await open(root)
    const engine = await openEngine({
      storage: project.storage,
      kernel: project.kernel,
      definitions: await basicDefinitions(),
    })
    try {
      const { runId } = await engine.dispatch('slow', { ms: 1500, lines: 60 })
      await until(async () => (await readJournal(project.storage, runId)).length > 15, 60_000, 'some lines')
      const watcher = start(['--root', root, 'watch', runId, '--json'], { cwd: '/' })
      const watched = await watcher.exited
      assert.is(watched.code, 0, watched.stderr)
      const lines = watched.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as JournalRecord)
      const journal = await readJournal(project.storage, runId)
      assert.equal(
        lines.map((r) => r.seq),
        journal.map((r) => r.seq),
        'every record once, in order',
      )
      assert.equal(lines, journal)
      assert.is(lines.filter((r) => r.type === 'log').length, 60)
      assert.ok(lines.at(-1)?.type === 'status' && lines.at(-1)!.type === 'status')
    } finally {
      await engine.close()
      await project.close()
    }
  })

  test(`${kind}: watch exit codes: 0 complete, 1 failed, 2 cancelled, 3 suspended, 4 unknown run, 130 interrupted watcher (the run carries on)`, async () => {
    const root = await newProject(kind)
    const project = await open(root)
    const engine = await openEngine({
      storage: project.storage,
      kernel: project.kernel,
      definitions: await basicDefinitions(),
    })
    try {
      const settle = async (name: string, input?: unknown) =>
        (await engine.settled((await engine.dispatch(name, input)).runId))!.id
      const complete = await settle('hello', { who: 'w' })
      const failed = await settle('fails')
      const suspended = await settle('naps', { ms: 3_600_000 })
      const cancelled = (await engine.dispatch('slow', { ms: 60_000 })).runId
      await until(async () => (await engine.get(cancelled))?.status === 'running')
      await engine.cancel(cancelled)
      const cases: Array<[string, number, RegExp]> = [
        [complete, 0, /result: \{"greeting":"hello w","n":1\}\nrun \S+ complete\n$/],
        [failed, 1, /run \S+ failed: TypeError: bad thing happened\n$/],
        [cancelled, 2, /run \S+ cancelled\n$/],
        [suspended, 3, /run \S+ suspended\n$/],
        ['run-0000000000000000000000000', 4, /^unknown run run-0+\n$/],
      ]
      for (const [runId, code, out] of cases) {
        const run = marbles(['--root', root, 'watch', runId], { cwd: '/' })
        assert.is(run.code, code, `${runId}: ${run.stderr}`)
        assert.match(run.stdout, out)
      }

      const long = (await engine.dispatch('slow', { ms: 600_000 })).runId // outlives the watcher, however slow its start
      const watcher = start(['--root', root, 'watch', long])
      await until(() => watcher.output().stdout.includes('running'), 60_000, 'the watcher to print')
      watcher.child.kill('SIGINT')
      const { code } = await watcher.exited
      assert.is(code, 130)
      assert.is((await engine.get(long))?.status, 'running', 'Ctrl-C stopped the watcher, not the run')
      await engine.cancel(long)
    } finally {
      await engine.close()
      await project.close()
    }
  })
}

test('marbles run executes in its own process when no engine owns the state; a second `run` joins the serving owner and waits for it', async () => {
  const root = await newProject('fs')
  const alone = marbles(['--root', root, '--source', BASIC, 'run', 'hello', '--input', '{"who":"cli"}'])
  assert.is(alone.code, 0, alone.stderr)
  assert.match(alone.stdout, /^run-[0-9a-z]{26}\nresult: \{"greeting":"hello cli","n":3\}\nrun run-\S+ complete\n$/)
  for (const [name, code] of [
    ['fails', 1],
    ['naps', 3],
  ] as const)
    assert.is(marbles(['--root', root, '--source', BASIC, 'run', name, '--input', '{"ms":60000}']).code, code)

  const serve = start(['--root', root, '--source', BASIC, 'serve'])
  try {
    await until(() => serve.output().stderr.includes('marbles serve:'), 15_000, 'serve to start')
    const joined = marbles([
      '--root',
      root,
      '--source',
      BASIC,
      'run',
      'hello',
      '--input',
      '{"who":"joined"}',
      '--watch',
    ])
    assert.is(joined.code, 0, joined.stderr)
    assert.match(joined.stderr, new RegExp(`executed by the engine owning .* \\(pid ${serve.child.pid}\\)`))
    assert.match(joined.stdout, /hello joined/)
    const detached = marbles([
      '--root',
      root,
      '--source',
      BASIC,
      'run',
      'slow',
      '--input',
      '{"ms":60000}',
      '--detach',
    ]).stdout.trim()
    await until(
      () => marbles(['--root', root, 'runs']).stdout.includes(`${detached}  slow  running`),
      10_000,
      'the detached run to start',
    )
    const cancel = marbles(['--root', root, 'cancel', detached])
    assert.is(cancel.code, 0, cancel.stderr)
    assert.match(cancel.stdout, /cancelled/)
    const bad = marbles(['--root', root, '--source', BASIC, 'run', 'nope'])
    assert.is(bad.code, 1)
    assert.match(bad.stderr, /^error: No workflow or step named "nope"; known: .*\n$/)
    const second = marbles(['--root', root, '--source', BASIC, 'serve'])
    assert.is(second.code, 1)
    assert.match(second.stderr, /^error: Another engine owns this state \(pid \d+ /)
  } finally {
    kill(serve.child, 'SIGINT')
    const { code } = await serve.exited
    assert.is(code, 0, 'serve stops cleanly on Ctrl-C')
  }
})

test.run()
