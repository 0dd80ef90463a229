import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { openProject } from '@foundry/project'
import { consoleProject, startUi } from './console-runs.js'
import { BIN, cleanup, cli, tempDir } from './helpers.js'
import { startHttp } from './http-helpers.js'

/*
 * Dispatch, cancel and re-run from the web console, through the real bin: the console's run routes
 * over Marbles' engine, the workflows running in the `foundry ui` (or `foundry mcp --http`) process.
 */

const test = suite('the console runs workflows: dispatch, cancel, re-run')
test.after(cleanup)

async function api(base: string, path: string, secret: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}api/${path}`, {
    headers: { authorization: `Bearer ${secret}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { method: 'POST', body: JSON.stringify(body) }),
  })
  return { status: res.status, json: await res.json() }
}

/** The run's status once it is `want` (polled, with a generous bound). */
async function until(base: string, secret: string, runId: string, want: string): Promise<any> {
  let last: any
  for (let i = 0; i < 400; i++) {
    last = (await api(base, `runs/${runId}`, secret)).json
    if (last.status === want) return last
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`run ${runId} is ${last?.status}, never ${want}`)
}

test('foundry ui: the workflows with their schemas; a run token dispatches, cancels and re-runs; others get 403', async () => {
  const { root, read, write, run } = consoleProject()
  const ui = await startUi(root)
  try {
    const base = ui.url
    const listed = await api(base, 'workflows', read)
    assert.is(listed.status, 200, JSON.stringify(listed.json))
    assert.equal(
      listed.json.workflows.map((w: any) => [w.name, w.description, w.inputSchema.required]),
      [['deploy', 'Ship a service', ['service']]],
    )
    assert.equal(Object.keys(listed.json.workflows[0].inputSchema.properties), ['service', 'replicas', 'hold'])
    assert.is((await api(base, 'session', run)).json.runActions, true)

    for (const secret of [read, write]) {
      const refused = await api(base, 'runs', secret, { name: 'deploy', input: { service: 'billing' } })
      assert.is(refused.status, 403)
      assert.match(refused.json.error.message, /this needs run \(foundry token create --role run\)$/)
    }
    const unknown = await api(base, 'runs', run, { name: 'deplyo', input: {} })
    assert.is(unknown.status, 404)
    assert.is(unknown.json.error.message, 'No workflow or step named "deplyo"; known: deploy')
    const bad = await api(base, 'runs', run, { name: 'deploy', input: { replicas: 0 } })
    assert.is(bad.status, 400)
    assert.match(bad.json.error.message, /^Invalid input of workflow deploy: /)
    assert.match(bad.json.error.message, /service/)
    assert.match(bad.json.error.message, /replicas/)

    const made = await api(base, 'runs', run, { name: 'deploy', input: { service: 'billing', replicas: 2 } })
    assert.is(made.status, 200, JSON.stringify(made.json))
    assert.equal([made.json.name, made.json.status], ['deploy', 'queued'])
    await until(base, read, made.json.runId, 'complete')

    const held = await api(base, 'runs', run, { name: 'deploy', input: { service: 'ledger', hold: true } })
    await until(base, read, held.json.runId, 'running')
    assert.is((await api(base, `runs/${held.json.runId}/cancel`, read, {})).status, 403)
    const cancelled = await api(base, `runs/${held.json.runId}/cancel`, run, {})
    assert.is(cancelled.status, 200, JSON.stringify(cancelled.json))
    assert.is(cancelled.json.runId, held.json.runId)
    await until(base, read, held.json.runId, 'cancelled')

    const again = await api(base, `runs/${made.json.runId}/rerun`, run, {})
    assert.is(again.status, 200, JSON.stringify(again.json))
    assert.is(again.json.rerunOf, made.json.runId)
    await until(base, read, again.json.runId, 'complete')
    const missing = await api(base, 'runs/run-nope/cancel', run, {})
    assert.is(missing.status, 404)
  } finally {
    assert.is(await ui.stop(), 0)
  }
})

test('foundry ui without a Marbles workspace: the console serves as before, and dispatch says what is missing', async () => {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  const made = cli(['token', 'create', '--role', 'run', '--name', 'carol', '--root', root])
  const secret = made.stdout.split('\n')[0]!
  const ui = await startUi(root)
  try {
    assert.is((await api(ui.url, 'facts', secret)).status, 200)
    const listed = await api(ui.url, 'workflows', secret)
    assert.is(listed.status, 404)
    assert.match(listed.json.error.message, /^No Marbles workspace: neither .* exists/)
  } finally {
    assert.is(await ui.stop(), 0)
  }
})

test('foundry mcp --http: the console under /ui/ dispatches with a run token; a run still going when it stops is ended', async () => {
  const { root, read, run } = consoleProject()
  let held = ''
  const server = await startHttp(BIN, ['mcp', '--http', '--port', '0', '--root', root], {
    FOUNDRY_HOOK_SERVER: 'off',
    FOUNDRY_TOKENS: undefined,
  })
  try {
    const base = server.url.replace(/\/mcp$/, '/ui/')
    assert.is((await api(base, 'runs', read, { name: 'deploy', input: { service: 'billing' } })).status, 403)
    const made = await api(base, 'runs', run, { name: 'deploy', input: { service: 'billing' } })
    assert.is(made.status, 200, JSON.stringify(made.json))
    await until(base, read, made.json.runId, 'complete')
    held = (await api(base, 'runs', run, { name: 'deploy', input: { service: 'ledger', hold: true } })).json.runId
    await until(base, read, held, 'running')
  } finally {
    assert.is(await server.stop(), 0)
  }
  const state = await openProject({ root })
  const record = (await state.storage.get('marbles.runs', held)) as { status: string; reason?: string }
  await state.close()
  assert.equal([record.status, record.reason], ['cancelled', 'the engine shut down'])
})

test.run()
