import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openProject } from '@foundry/project'
import { serveConsole } from '../src/index.js'
import type { ConsoleServer } from '../src/serve.js'
import { bearer, cleanup, request, tempProject, writeRun } from './helpers.js'
import { storageRunActions } from './run-actions.js'

const READ = 'read-secret-123'
const WRITE = 'write-secret-456'
const RUN = 'run-secret-789'
const servers: ConsoleServer[] = []
test.after.each(async () => {
  for (const s of servers.splice(0)) await s.close()
})
test.after(cleanup)

/** A console over a project with a read, a write and a run token; with run actions unless `runs` is false. */
async function started(runs = true): Promise<{ root: string; url: string }> {
  const root = await tempProject()
  const tokens = [
    ['viewer', 'read', READ],
    ['bob', 'write', WRITE],
    ['carol', 'run', RUN],
  ].map(([name, role, secret]) => ({
    name,
    roles: [role],
    sha256: createHash('sha256').update(secret!).digest('hex'),
    created: '2026-12-01',
  }))
  writeFileSync(join(root, '.foundry', 'tokens.json'), JSON.stringify({ tokens }))
  const server = await serveConsole({ root, port: 0, ...(runs && { runs: storageRunActions }) })
  servers.push(server)
  return { root, url: server.url }
}

const post = (url: string, secret: string, body: unknown = {}) =>
  request(url, { method: 'POST', headers: bearer(secret), body })

test('without run actions: the session says so, and the routes answer 404 naming where runs are dispatched', async () => {
  const { url } = await started(false)
  const session = await request(`${url}api/session`, { headers: bearer(RUN) })
  assert.equal(session.json, { name: 'carol', roles: ['run'], runActions: false })
  const workflows = await request(`${url}api/workflows`, { headers: bearer(READ) })
  assert.is(workflows.status, 404)
  assert.match(
    workflows.json.error.message,
    /^run actions: this console does not run workflows \(foundry ui serves them/,
  )
  assert.is((await post(`${url}api/runs`, RUN, { name: 'deploy' })).status, 404)
})

test('a read or write token lists the workflows but may not dispatch, cancel or re-run: 403 naming the run role', async () => {
  const { root, url } = await started()
  const project = await openProject({ root })
  await writeRun(project, 'run-7f3a')
  await project.close()
  const listed = await request(`${url}api/workflows`, { headers: bearer(READ) })
  assert.is(listed.status, 200)
  assert.equal(
    listed.json.workflows.map((w: { name: string; inputSchema: { required: string[] } }) => [
      w.name,
      w.inputSchema.required,
    ]),
    [['deploy', ['service']]],
  )
  for (const [secret, name, role] of [
    [READ, 'viewer', 'read'],
    [WRITE, 'bob', 'write'],
  ] as const)
    for (const path of ['runs', 'runs/run-7f3a/cancel', 'runs/run-7f3a/rerun']) {
      const refused = await post(`${url}api/${path}`, secret, { name: 'deploy', input: { service: 'billing' } })
      assert.is(refused.status, 403, path)
      assert.is(
        refused.json.error.message,
        `Forbidden: the token ${name} has role ${role}; this needs run (foundry token create --role run)`,
      )
    }
  const project2 = await openProject({ root })
  assert.equal(await project2.storage.keys('marbles.runs'), ['run-7f3a'], 'nothing was dispatched')
  assert.is(((await project2.storage.get('marbles.runs', 'run-7f3a')) as { status: string }).status, 'running')
  await project2.close()
})

test('a run token dispatches; bad input is refused naming the field, an unknown workflow naming the known ones', async () => {
  const { root, url } = await started()
  const noName = await post(`${url}api/runs`, RUN, { input: {} })
  assert.is(noName.status, 400)
  assert.match(noName.json.error.message, /^name: the workflow to dispatch/)
  const unknown = await post(`${url}api/runs`, RUN, { name: 'deplyo', input: { service: 'billing' } })
  assert.is(unknown.status, 404)
  assert.is(unknown.json.error.message, 'No workflow or step named "deplyo"; known: deploy')
  const bad = await post(`${url}api/runs`, RUN, { name: 'deploy', input: { replicas: 0 } })
  assert.is(bad.status, 400)
  assert.match(bad.json.error.message, /^Invalid input of workflow deploy: .*service/)
  assert.match(bad.json.error.message, /replicas/)
  const notJson = await request(`${url}api/runs`, {
    method: 'POST',
    headers: { ...bearer(RUN), 'content-type': 'application/json' },
    body: undefined,
  })
  assert.is(notJson.status, 400, 'an empty body is an object without a name')
  const made = await post(`${url}api/runs`, RUN, { name: 'deploy', input: { service: 'billing', replicas: 2 } })
  assert.is(made.status, 200, made.body)
  assert.equal(Object.keys(made.json).sort(), ['name', 'runId', 'status'])
  const listed = await request(`${url}api/runs`, { headers: bearer(READ) })
  assert.equal(
    listed.json.map((r: { id: string; status: string }) => [r.id, r.status]),
    [[made.json.runId, 'running']],
  )
  const project = await openProject({ root })
  const first = JSON.parse((await project.storage.readLog(`marbles/${made.json.runId}`, 0)).entries[0]!)
  await project.close()
  assert.equal(first.input, { service: 'billing', replicas: 2 })
})

test('a run token cancels a running run and re-runs an ended one; a re-run of a running run is a conflict', async () => {
  const { url } = await started()
  const made = (await post(`${url}api/runs`, RUN, { name: 'deploy', input: { service: 'billing' } })).json
  const early = await post(`${url}api/runs/${made.runId}/rerun`, RUN)
  assert.is(early.status, 409)
  assert.match(early.json.error.message, /is running: re-run a run once it has ended/)
  const cancelled = await post(`${url}api/runs/${made.runId}/cancel`, RUN)
  assert.equal(cancelled.json, { runId: made.runId, status: 'cancelled' })
  const run = await request(`${url}api/runs/${made.runId}`, { headers: bearer(READ) })
  assert.equal([run.json.status, run.json.reason], ['cancelled', 'cancelled by request'])
  const again = await post(`${url}api/runs/${made.runId}/rerun`, RUN)
  assert.is(again.status, 200, again.body)
  assert.is(again.json.rerunOf, made.runId)
  assert.is.not(again.json.runId, made.runId)
  const missing = await post(`${url}api/runs/run-nope/cancel`, RUN)
  assert.is(missing.status, 404)
  const badId = await post(`${url}api/runs/${encodeURIComponent('../x')}/cancel`, RUN)
  assert.is(badId.status, 400)
  assert.match(badId.json.error.message, /^run id: /)
  const wrongMethod = await request(`${url}api/runs/${made.runId}/cancel`, { headers: bearer(RUN) })
  assert.is(wrongMethod.status, 405)
})

test.run()
