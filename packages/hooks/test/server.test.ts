import { mkdirSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { dirname, join } from 'node:path'
import { openProject } from '@foundry/project'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { hookSocketPath, serveHooks } from '../src/index.js'
import { contextOf, emptyProject, events, larkspurProject, messageOf, payload, runHookBin } from './helpers.js'

const PROMPT = 'the stripe webhook handler created duplicate payments again'

test('with a hook server running, prompt-context is answered by it (from the configuration it was opened with)', async () => {
  const dir = await larkspurProject()
  const project = await openProject({ root: dir })
  const server = await serveHooks(project)
  try {
    assert.ok(server)
    assert.is(server!.path, hookSocketPath(dir))
    // A configuration only a new process would read: nothing qualifies under it.
    writeFileSync(join(dir, '.foundry', 'config.json'), JSON.stringify({ promptContext: { minScore: 50 } }))
    const served = await runHookBin('prompt-context', payload.prompt(dir, PROMPT))
    assert.is(served.code, 0, served.stderr)
    assert.match(contextOf(served)!, /Stripe webhook retries can record a payment twice/)
    const inProcess = await runHookBin('prompt-context', payload.prompt(dir, PROMPT), { FOUNDRY_HOOK_SERVER: 'off' })
    assert.is(inProcess.stdout, '', 'FOUNDRY_HOOK_SERVER=off runs the hook in its own process')
    const start = await runHookBin('session-start', payload.sessionStart(dir))
    assert.match(contextOf(start)!, /^# Memory index/)
  } finally {
    await server?.close()
    await project.close()
  }
})

test('the served answer is byte for byte the in-process answer', async () => {
  const dir = await larkspurProject()
  const alone = await runHookBin('prompt-context', payload.prompt(dir, PROMPT))
  const project = await openProject({ root: dir })
  const server = await serveHooks(project)
  try {
    const served = await runHookBin('prompt-context', payload.prompt(dir, PROMPT))
    assert.is(served.stdout, alone.stdout)
    assert.equal(
      events(dir).map((e) => e.kind),
      ['memory_search', 'memory_search'],
    )
  } finally {
    await server?.close()
    await project.close()
  }
})

test('hooks that write (the firewall) always run in their own process', async () => {
  const dir = emptyProject({ enforcement: 'off' })
  const project = await openProject({ root: emptyProject() }) // a server holding another configuration…
  const server = await serveHooks({ ...project, root: dir }) // …listening for this project
  try {
    const ran = await runHookBin('subagent-firewall', payload.subagentStop(dir, messageOf(5000)))
    assert.is(ran.stdout, '', 'this project has enforcement off, which only its own process reads')
  } finally {
    await server?.close()
    await project.close()
  }
})

test('one server per project: a second one stands aside while the first lives, and takes over after', async () => {
  const dir = emptyProject()
  const project = await openProject({ root: dir })
  const first = await serveHooks(project)
  assert.ok(first)
  assert.is(await serveHooks(project), undefined)
  await first!.close()
  const second = await serveHooks(project)
  assert.ok(second, 'the address is free again')
  await second!.close()
  await project.close()
})

test('a stale socket file is replaced; with none listening, hooks run in process', async () => {
  const dir = await larkspurProject()
  mkdirSync(dirname(hookSocketPath(dir)), { recursive: true, mode: 0o700 })
  writeFileSync(hookSocketPath(dir), 'left behind by a crashed server')
  const fallback = await runHookBin('prompt-context', payload.prompt(dir, PROMPT))
  assert.is(fallback.code, 0, fallback.stderr)
  assert.ok(contextOf(fallback))
  const project = await openProject({ root: dir })
  const server = await serveHooks(project)
  assert.ok(server, 'a dead address is taken over')
  await server!.close()
  await project.close()
})

test('the server refuses what it does not serve, so the client runs the hook itself', async () => {
  const dir = emptyProject()
  const project = await openProject({ root: dir })
  const server = (await serveHooks(project))!
  const ask = (line: string) =>
    new Promise<string>((resolve, reject) => {
      let text = ''
      const socket = connect(server.path)
      socket.on('connect', () => socket.end(line))
      socket.on('data', (d) => (text += d))
      socket.on('close', () => resolve(text))
      socket.on('error', reject)
    })
  try {
    assert.equal(JSON.parse(await ask('{"v":1,"hook":"subagent-firewall","stdin":"{}"}\n')), {
      v: 1,
      unavailable: 'hook "subagent-firewall" is not served',
    })
    assert.match(
      JSON.parse(await ask('{"v":2,"hook":"prompt-context","stdin":"{}"}\n')).unavailable,
      /unsupported request/,
    )
    assert.match(JSON.parse(await ask('not json\n')).unavailable, /^bad request/)
    const bad = JSON.parse(await ask(`${JSON.stringify({ v: 1, hook: 'prompt-context', stdin: 'not json' })}\n`))
    assert.equal([bad.exitCode, bad.stdout], [1, ''])
    assert.match(bad.stderr, /^foundry-hook prompt-context: stdin is not JSON/)
  } finally {
    await server.close()
    await project.close()
  }
})

test.run()
