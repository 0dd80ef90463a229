import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { openProject } from '@foundry/project'
import { createConsoleHandler, serveConsole } from '../src/index.js'
import type { ConsoleServer } from '../src/serve.js'
import { bearer, cleanup, fillProject, request, startAppender, tempProject, writeRun } from './helpers.js'

const servers: ConsoleServer[] = []
test.after.each(async () => {
  for (const s of servers.splice(0)) await s.close()
})
test.after(cleanup)

async function started(
  options: { token?: string; tokens?: Array<{ name: string; roles: string[]; secret: string }> } = {},
) {
  const root = await tempProject()
  const filled = await fillProject(root)
  await filled.project.close()
  if (options.tokens) {
    const tokens = options.tokens.map((t) => ({
      name: t.name,
      roles: t.roles,
      sha256: createHash('sha256').update(t.secret).digest('hex'),
      created: '2026-12-01',
    }))
    writeFileSync(join(root, '.foundry', 'tokens.json'), JSON.stringify({ tokens }))
  }
  const server = await serveConsole({ root, port: 0, ...(options.token && { token: options.token }) })
  servers.push(server)
  return { root, server, ...filled }
}

test('a Host or Origin header of another site is refused before anything else', async () => {
  const { server } = await started()
  const host = new URL(server.url).host
  assert.is((await request(`${server.url}api/facts`, { headers: { host: `evil.example:${server.port}` } })).status, 403)
  const badOrigin = await request(`${server.url}api/facts`, { headers: { origin: 'http://evil.example' } })
  assert.is(badOrigin.status, 403)
  assert.match(badOrigin.json.error.message, /Invalid Origin header/)
  assert.is((await request(`${server.url}api/facts`, { headers: { origin: `http://${host}` } })).status, 200)
  assert.is((await request(`${server.url}api/facts`, { headers: { host: `localhost:${server.port}` } })).status, 200)
})

test('the page is served with a strict CSP and no inline script', async () => {
  const { server } = await started()
  const page = await request(server.url)
  assert.is(page.status, 200)
  const csp = String(page.headers['content-security-policy'])
  assert.match(csp, /script-src 'self'/)
  assert.not.match(csp, /unsafe-inline|unsafe-eval/)
  assert.match(page.body, /<script type="module" src="\.\/app\.js"><\/script>/)
  assert.not.match(page.body.replace('<script type="module" src="./app.js"></script>', ''), /<script/)
  assert.is((await request(`${server.url}app.js`)).headers['content-type'], 'text/javascript; charset=utf-8')
  assert.is((await request(`${server.url}../package.json`)).status, 404)
})

test('search goes through the project retriever; listing filters by type and status; bad input names the field', async () => {
  const { server, chain } = await started()
  const found = (await request(`${server.url}api/facts?q=flyway%20migrations`)).json
  assert.is(found.mode, 'search')
  assert.ok(found.facts.some((f: { id: string }) => f.id === chain[2]))
  assert.not.ok(
    found.facts.some((f: { id: string }) => f.id === chain[0]),
    'a superseded fact is not found by search',
  )
  const superseded = (await request(`${server.url}api/facts?status=superseded`)).json
  assert.equal(superseded.facts.map((f: { id: string }) => f.id).sort(), [chain[0], chain[1]])
  const risks = (await request(`${server.url}api/facts?type=risk`)).json
  assert.equal(
    risks.facts.map((f: { type: string }) => f.type),
    ['risk'],
  )
  const bad = await request(`${server.url}api/facts?type=wish`)
  assert.is(bad.status, 400)
  assert.match(bad.json.error.message, /^type: one of decision/)
  const badId = await request(`${server.url}api/facts/..%2Fconfig`)
  assert.is(badId.status, 400)
  assert.match(badId.json.error.message, /^fact id/)
})

test('a fact page carries the fact and its whole supersede chain, oldest first', async () => {
  const { server, chain } = await started()
  const page = (await request(`${server.url}api/facts/${chain[1]}`)).json
  assert.is(page.fact.id, chain[1])
  assert.is(page.state, 'superseded')
  assert.equal(
    page.chain.map((e: { id: string }) => e.id),
    chain,
  )
  assert.equal(
    page.chain.map((e: { state: string }) => e.state),
    ['superseded', 'superseded', 'active'],
  )
  assert.is(page.chain[2].author, 'alice')
})

test('without team tokens: anyone on loopback reads, only the console token writes', async () => {
  const { server, chain, root } = await started({ token: 'console-secret-1' })
  const refused = await request(`${server.url}api/facts/${chain[2]}/forget`, {
    method: 'POST',
    body: { reason: 'moved to the platform team' },
  })
  assert.is(refused.status, 403)
  assert.match(refused.json.error.message, /needs a write token/)
  const wrong = await request(`${server.url}api/facts/${chain[2]}/forget`, {
    method: 'POST',
    headers: bearer('not-the-token'),
    body: { reason: 'x' },
  })
  assert.is(wrong.status, 401)
  const noReason = await request(`${server.url}api/facts/${chain[2]}/forget`, {
    method: 'POST',
    headers: bearer('console-secret-1'),
    body: {},
  })
  assert.is(noReason.status, 400)
  assert.match(noReason.json.error.message, /^reason:/)
  const done = await request(`${server.url}api/facts/${chain[2]}/forget`, {
    method: 'POST',
    headers: bearer('console-secret-1'),
    body: { reason: 'moved to the platform team' },
  })
  assert.is(done.status, 200, done.body)
  const project = await openProject({ root })
  const fact = await project.kernel.memory.get(chain[2]!)
  await project.close()
  assert.is(fact.status, 'forgotten')
  assert.is(fact.forgottenReason, 'moved to the platform team')
})

test('with team tokens: no token is refused, a read token browses but may not write, a write token edits as its name', async () => {
  const { server, chain } = await started({
    tokens: [
      { name: 'viewer', roles: ['read'], secret: 'read-secret-123' },
      { name: 'bob', roles: ['write'], secret: 'write-secret-456' },
    ],
  })
  assert.is((await request(`${server.url}api/facts`)).status, 401)
  assert.is((await request(server.url)).status, 200, 'the page itself holds no data')
  assert.is((await request(`${server.url}api/facts`, { headers: bearer('read-secret-123') })).status, 200)
  const edit = {
    title: 'Flyway migrations run in the deploy job only',
    body: 'Migrations run in the deploy job.\nWhy: replicas raced.\nHow to apply: flyway migrate in deploy.yml.',
    type: 'decision',
  }
  const refused = await request(`${server.url}api/facts/${chain[2]}/edit`, {
    method: 'POST',
    headers: bearer('read-secret-123'),
    body: edit,
  })
  assert.is(refused.status, 403)
  assert.match(refused.json.error.message, /token viewer has role read; this needs write/)
  const edited = await request(`${server.url}api/facts/${chain[2]}/edit`, {
    method: 'POST',
    headers: bearer('write-secret-456'),
    body: edit,
  })
  assert.is(edited.status, 200, edited.body)
  assert.is(edited.json.supersedes, chain[2])
  const page = (await request(`${server.url}api/facts/${edited.json.id}`, { headers: bearer('write-secret-456') })).json
  assert.is(page.fact.author, 'bob')
  assert.equal(
    page.chain.map((e: { id: string }) => e.id),
    [...chain, edited.json.id],
  )
  const unknownField = await request(`${server.url}api/facts/${edited.json.id}/edit`, {
    method: 'POST',
    headers: bearer('write-secret-456'),
    body: { ...edit, status: 'active' },
  })
  assert.is(unknownField.status, 400)
  assert.match(unknownField.json.error.message, /^status: not editable/)
})

test('the review queue: a read token lists it, a write token accepts (through the write path), rejects and edits', async () => {
  const { server, root } = await started({
    tokens: [
      { name: 'viewer', roles: ['read'], secret: 'read-secret-123' },
      { name: 'bob', roles: ['write'], secret: 'write-secret-456' },
    ],
  })
  const project = await openProject({ root })
  await project.kernel.review.propose(
    [
      { title: 'Refunds need 2 approvals', body: 'Why: fraud.\nHow to apply: ask finance.', type: 'decision' },
      { title: 'Invoices are numbered per month', body: 'INV-2026-01-0001.', type: 'convention' },
      { title: 'Tax is computed per line', body: 'Not per invoice.', type: 'convention' },
    ],
    { author: 'capture' },
  )
  await project.close()
  const read = bearer('read-secret-123')
  const write = bearer('write-secret-456')
  const queue = await request(`${server.url}api/review`, { headers: read })
  assert.equal(
    queue.json.proposals.map((p: { id: string; author: string }) => [p.id, p.author]),
    [
      ['proposal-0001', 'capture'],
      ['proposal-0002', 'capture'],
      ['proposal-0003', 'capture'],
    ],
  )
  const refused = await request(`${server.url}api/review/proposal-0001/accept`, {
    method: 'POST',
    headers: read,
    body: {},
  })
  assert.is(refused.status, 403)
  const accepted = await request(`${server.url}api/review/proposal-0001/accept`, {
    method: 'POST',
    headers: write,
    body: {},
  })
  assert.is(accepted.status, 200, accepted.body)
  assert.equal([accepted.json.proposal, accepted.json.action], ['proposal-0001', 'created'])
  assert.match(accepted.json.text, /^created: fact-\d+/)
  const rejected = await request(`${server.url}api/review/proposal-0002/reject`, {
    method: 'POST',
    headers: write,
    body: { reason: 'per year' },
  })
  assert.match(rejected.json.text, /^rejected: proposal-0002/)
  const edited = await request(`${server.url}api/review/proposal-0003/edit`, {
    method: 'POST',
    headers: write,
    body: { body: 'Per line, rounded half up.' },
  })
  assert.match(edited.json.text, /^edited: proposal-0003/)
  const bad = await request(`${server.url}api/review/proposal-0003/edit`, {
    method: 'POST',
    headers: write,
    body: { type: 'opinion' },
  })
  assert.is(bad.status, 400)
  assert.match(bad.json.error.message, /type/)
  assert.is(
    (await request(`${server.url}api/review/prop-1/accept`, { method: 'POST', headers: write, body: {} })).json.error
      .message,
    'proposal id: write it as proposal-0003, got "prop-1"',
  )
  assert.equal(
    (await request(`${server.url}api/review`, { headers: read })).json.proposals.map(
      (p: { id: string; fact: { body: string } }) => [p.id, p.fact.body],
    ),
    [['proposal-0003', 'Per line, rounded half up.']],
  )
})

test('runs are listed from marbles.runs, and a journal streams entries another process appends', async () => {
  const { server, root } = await started()
  const project = await openProject({ root })
  await writeRun(project, 'run-7f3a')
  await project.close()
  const runs = (await request(`${server.url}api/runs`)).json
  assert.equal(
    runs.map((r: { id: string; status: string }) => [r.id, r.status]),
    [['run-7f3a', 'running']],
  )
  assert.is((await request(`${server.url}api/runs/run-nope`)).status, 404)

  const abort = new AbortController()
  const res = await fetch(`${server.url}api/runs/run-7f3a/journal`, { signal: abort.signal })
  assert.is(res.headers.get('content-type'), 'text/event-stream; charset=utf-8')
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
  let text = ''
  const until = async (pattern: RegExp) => {
    while (!pattern.test(text)) {
      const { value, done } = await reader.read()
      if (done) throw new Error(`stream ended before ${pattern}: ${text}`)
      text += value
    }
  }
  await until(/"status":"running"/)
  const appender = startAppender(root, 'run-7f3a')
  try {
    await appender.append('step audit started')
    await until(/step audit started/)
  } finally {
    await appender.stop()
    abort.abort()
  }
})

test('mounted under /ui in another server: redirects to the slash, serves the page and the API below it', async () => {
  const root = await tempProject()
  const project = await openProject({ root })
  const handler = createConsoleHandler({ project, basePath: '/ui' })
  const server: Server = createServer((req, res) =>
    req.url?.startsWith('/ui') ? handler(req, res) : res.writeHead(200).end('other'),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  try {
    const redirect = await request(`${base}/ui`)
    assert.is(redirect.status, 308)
    assert.is(redirect.headers.location, '/ui/')
    assert.match((await request(`${base}/ui/`)).body, /Foundry console/)
    assert.equal((await request(`${base}/ui/api/facts`)).json.facts, [])
    assert.is((await request(`${base}/elsewhere`)).body, 'other')
  } finally {
    handler.close()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await project.close()
  }
})

test('health and the doctor report on a SQLite project too', async () => {
  const root = await tempProject('sqlite')
  const project = await openProject({ root })
  await writeRun(project, 'run-1')
  await project.close()
  const server = await serveConsole({ root, port: 0 })
  servers.push(server)
  const health = (await request(`${server.url}api/health`)).json
  assert.is(health.storage, 'sqlite')
  assert.is(health.runs, 1)
  assert.equal(health.facts, { active: 0, expired: 0, superseded: 0, forgotten: 0 })
  const doctor = (await request(`${server.url}api/doctor`)).json
  assert.type(doctor.healthy, 'boolean')
  assert.ok(doctor.findings.length > 0)
})

test('serveConsole refuses a non-loopback address without team tokens', async () => {
  const root = await tempProject()
  try {
    await serveConsole({ root, host: '0.0.0.0', port: 0 })
    assert.unreachable('should refuse')
  } catch (error) {
    assert.is((error as { code?: string }).code, 'INVALID_INPUT')
    assert.match((error as Error).message, /^--host 0\.0\.0\.0 is not a loopback address/)
  }
})

test.run()
