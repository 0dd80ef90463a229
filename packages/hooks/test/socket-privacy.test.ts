import { spawn, spawnSync } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { serveHooks } from '../src/server.js'
import { askServer, hookSocketPath } from '../src/socket.js'

// The hook socket lives in a folder private to the user (socket.ts, the address). Each test points
// TMPDIR and XDG_RUNTIME_DIR at a scratch folder, so the real runtime folder is never touched. Another
// local user is simulated by chown-ing to OTHER, which takes root: those cases are skipped otherwise.
// Only socket.ts and server.ts are imported, and the built bin for the fallback case.

const OTHER = 12345
const UID = process.getuid?.() ?? -1
const asRoot = UID === 0 ? test : test.skip
const SAVED = { TMPDIR: process.env.TMPDIR, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR }
const SCRATCH = tmpdir()
const NOT_JSON = 'not json'
let base = ''
let servers: Server[] = []

test.before.each(() => {
  base = mkdtempSync(join(SCRATCH, 'foundry-socket-'))
  mkdirSync(join(base, 'tmp'))
  process.env.TMPDIR = join(base, 'tmp')
  delete process.env.XDG_RUNTIME_DIR
})

test.after.each(async () => {
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))))
  servers = []
  for (const [name, value] of Object.entries(SAVED)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  rmSync(base, { recursive: true, force: true })
})

/** Enough of a project for the server to listen and answer a malformed request (which uses no kernel). */
function bareProject(root = join(base, 'project')): Parameters<typeof serveHooks>[0] {
  return { root } as Parameters<typeof serveHooks>[0]
}

/** A server that is not Foundry's: it answers every request with `stdout`. */
async function impostor(path: string, stdout = 'impostor'): Promise<Server> {
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    socket.resume()
    socket.on('end', () => socket.end(`${JSON.stringify({ v: 1, stdout, stderr: '', exitCode: 0 })}\n`))
  })
  await new Promise<void>((done) => server.listen(path, done))
  servers.push(server)
  return server
}

const HOOK_BIN = new URL('../dist/bin/foundry-hook.cjs', import.meta.url).pathname

/** Run the built `foundry-hook session-start` for the project at `root`, as Claude Code does (TMPDIR as set now). */
function sessionStart(
  root: string,
  env: Record<string, string> = {},
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const event = {
    session_id: 'sess-7f3a',
    transcript_path: join(root, 'transcript.jsonl'),
    cwd: root,
    hook_event_name: 'SessionStart',
    permission_mode: 'default',
    source: 'startup',
  }
  const { FOUNDRY_ROOT, CLAUDE_PROJECT_DIR, ...inherited } = process.env
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOOK_BIN, 'session-start'], { env: { ...inherited, ...env } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ stdout, stderr, code }))
    child.stdin.end(JSON.stringify(event))
  })
}

const mode = (path: string) => lstatSync(path).mode & 0o777
const ask = (root: string) => askServer(root, 'prompt-context', NOT_JSON)

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    assert.is((error as { code?: string }).code, 'UNAVAILABLE')
    return (error as Error).message
  }
  assert.unreachable('the server should refuse')
  return ''
}

test('the socket sits in a 0700 folder of the user: <tmpdir>/foundry-<uid>/, created by the server', async () => {
  const project = bareProject()
  const path = hookSocketPath(project.root)
  assert.is(dirname(path), join(base, 'tmp', `foundry-${UID}`))
  const server = await serveHooks(project, { warm: false })
  try {
    assert.is(server?.path, path)
    assert.is(mode(dirname(path)), 0o700)
    assert.ok(lstatSync(path).isSocket())
    const answer = await ask(project.root)
    assert.is(answer?.exitCode, 1, 'the server answered (the request was malformed on purpose)')
    assert.match(answer!.stderr, /stdin is not JSON/)
  } finally {
    await server?.close()
  }
})

test('with XDG_RUNTIME_DIR a folder of the user, the socket sits in $XDG_RUNTIME_DIR/foundry/', async () => {
  const runtime = join(base, 'run')
  mkdirSync(runtime, { mode: 0o700 })
  process.env.XDG_RUNTIME_DIR = runtime
  const project = bareProject()
  assert.is(dirname(hookSocketPath(project.root)), join(runtime, 'foundry'))
  const server = await serveHooks(project, { warm: false })
  try {
    assert.is(mode(join(runtime, 'foundry')), 0o700)
    assert.is((await ask(project.root))?.exitCode, 1)
  } finally {
    await server?.close()
  }
  process.env.XDG_RUNTIME_DIR = 'relative/run'
  assert.is(
    dirname(hookSocketPath(project.root)),
    join(base, 'tmp', `foundry-${UID}`),
    'a relative XDG_RUNTIME_DIR is ignored',
  )
  process.env.XDG_RUNTIME_DIR = join(base, 'missing')
  assert.is(dirname(hookSocketPath(project.root)), join(base, 'tmp', `foundry-${UID}`), 'a missing one too')
})

asRoot('an XDG_RUNTIME_DIR of another user is passed over for the temporary folder', () => {
  const runtime = join(base, 'run')
  mkdirSync(runtime, { mode: 0o700 })
  chownSync(runtime, OTHER, OTHER)
  process.env.XDG_RUNTIME_DIR = runtime
  assert.is(dirname(hookSocketPath(join(base, 'project'))), join(base, 'tmp', `foundry-${UID}`))
})

test('a folder open to others (0777): the server refuses and leaves its mode; the client does not connect', async () => {
  const root = join(base, 'project')
  const dir = dirname(hookSocketPath(root))
  mkdirSync(dir)
  chmodSync(dir, 0o777)
  assert.match(await refusal(serveHooks(bareProject(root), { warm: false })), /open to group or others \(mode 777\)/)
  assert.is(mode(dir), 0o777, 'never chmod-ed')
  await impostor(hookSocketPath(root))
  assert.is(await ask(root), undefined)
  chmodSync(dir, 0o750)
  assert.is(await ask(root), undefined, 'group bits alone are refused too')
  chmodSync(dir, 0o700)
  assert.is((await ask(root))?.stdout, 'impostor', 'the same socket in a private folder is asked')
})

asRoot('a folder owned by another uid: the server refuses and leaves it; the client does not connect', async () => {
  const root = join(base, 'project')
  const dir = dirname(hookSocketPath(root))
  mkdirSync(dir, { mode: 0o700 })
  chownSync(dir, OTHER, OTHER)
  assert.match(await refusal(serveHooks(bareProject(root), { warm: false })), new RegExp(`belongs to uid ${OTHER}`))
  assert.is(statSync(dir).uid, OTHER)
  await impostor(hookSocketPath(root))
  assert.is(await ask(root), undefined)
})

test('a symlinked folder is refused, even to a private folder of the user', async () => {
  const root = join(base, 'project')
  const dir = dirname(hookSocketPath(root))
  const real = join(base, 'elsewhere')
  mkdirSync(real, { mode: 0o700 })
  symlinkSync(real, dir)
  assert.match(await refusal(serveHooks(bareProject(root), { warm: false })), /is not a folder/)
  await impostor(hookSocketPath(root))
  assert.is(await ask(root), undefined)
})

asRoot('a socket owned by another uid is not asked: the hook runs in its own process and answers', async () => {
  const root = join(base, 'project')
  mkdirSync(join(root, '.foundry'), { recursive: true })
  const path = hookSocketPath(root)
  mkdirSync(dirname(path), { mode: 0o700 })
  await impostor(path)
  assert.is((await sessionStart(root)).stdout, 'impostor', 'a socket of the user is asked')
  chownSync(path, OTHER, OTHER)
  assert.is(await ask(root), undefined)
  const ran = await sessionStart(root)
  assert.is(ran.code, 0, ran.stderr)
  assert.match(ran.stdout, /# Memory index/)
  assert.is(ran.stdout, (await sessionStart(root, { FOUNDRY_HOOK_SERVER: 'off' })).stdout, 'the in-process answer')
})

test('a file that is not a socket is not asked', async () => {
  const root = join(base, 'project')
  const path = hookSocketPath(root)
  mkdirSync(dirname(path), { mode: 0o700 })
  writeFileSync(path, 'not a socket')
  assert.is(await ask(root), undefined)
})

test('a stale socket of the user is replaced', async () => {
  const project = bareProject()
  const path = hookSocketPath(project.root)
  mkdirSync(dirname(path), { mode: 0o700 })
  // A server killed while listening leaves its socket file behind.
  spawnSync(process.execPath, [
    '-e',
    `require('node:net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`,
  ])
  assert.ok(lstatSync(path).isSocket())
  assert.is(await ask(project.root), undefined, 'nothing listens')
  const server = await serveHooks(project, { warm: false })
  try {
    assert.ok(server, 'the dead address is taken over')
    assert.ok(lstatSync(path).isSocket())
    assert.is((await ask(project.root))?.exitCode, 1)
  } finally {
    await server?.close()
  }
})

asRoot("another user's file at the address is never unlinked", async () => {
  const project = bareProject()
  const path = hookSocketPath(project.root)
  mkdirSync(dirname(path), { mode: 0o700 })
  writeFileSync(path, 'not ours')
  chownSync(path, OTHER, OTHER)
  assert.match(await refusal(serveHooks(project, { warm: false })), new RegExp(`belongs to uid ${OTHER}`))
  assert.is(lstatSync(path).uid, OTHER, 'still there')
})

test.run()
