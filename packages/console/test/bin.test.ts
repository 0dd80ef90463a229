// The standalone `foundry-console` bin, built: without team tokens, on loopback, it is private to its
// user: it requires the user's local token (mode 0600, in the per-user runtime folder).
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanup, tempProject } from './helpers.js'

const BIN = fileURLToPath(new URL('../dist/bin/foundry-console.js', import.meta.url))
const running: Array<{ child: ChildProcess; exited: Promise<unknown>; runtimeDir: string }> = []

/** The bin on a free loopback port, its XDG_RUNTIME_DIR a fresh private folder; resolves at its address line. */
async function startConsole(args: string[], env: Record<string, string> = {}) {
  const runtimeDir = mkdtempSync(join(tmpdir(), 'console-runtime-'))
  const child = spawn(process.execPath, [BIN, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FOUNDRY_TOKENS: '', XDG_RUNTIME_DIR: runtimeDir, ...env },
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  running.push({ child, exited, runtimeDir })
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address after 20 s; output: ${out}`)), 20_000)
    const look = () => {
      const match = /Foundry console: (http\S+)/.exec(out)
      if (match && /\n/.test(out.slice(match.index))) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout!.on('data', look)
    void exited.then(() => (clearTimeout(timer), reject(new Error(`exited before listening; output: ${out}`))))
  })
  return { url, output: () => out, tokenFile: join(runtimeDir, 'foundry', 'http.token') }
}

const session = async (url: string, secret?: string) =>
  fetch(new URL('api/session', url), secret ? { headers: { authorization: `Bearer ${secret}` } } : {})

test.after.each(async () => {
  for (const { child, exited, runtimeDir } of running.splice(0)) {
    if (child.exitCode === null) {
      child.kill('SIGTERM')
      await exited
    }
    rmSync(runtimeDir, { recursive: true, force: true })
  }
})
test.after(cleanup)

test('no team token and no --token: an API call without the local token gets 401; the token file is mode 0600 and named, never shown', async () => {
  const server = await startConsole(['--root', await tempProject()])
  assert.is(statSync(server.tokenFile).mode & 0o777, 0o600)
  assert.is(statSync(join(server.tokenFile, '..')).mode & 0o777, 0o700)
  const secret = readFileSync(server.tokenFile, 'utf8').trim()
  assert.match(secret, /^fdl_[A-Za-z0-9_-]{32}$/)
  assert.is((await session(server.url)).status, 401)
  assert.is((await session(server.url, 'fdl_not-the-token')).status, 401)
  assert.match(server.output(), `enter the local token from ${server.tokenFile}`)
  assert.not.match(server.output(), secret)
  const answer = await session(server.url, secret)
  assert.is(answer.status, 200)
  assert.equal(await answer.json(), { name: 'local', roles: ['read', 'write', 'run'], runActions: false })
})

test('with --token: that secret is accepted too, and a request without a token still gets 401', async () => {
  const server = await startConsole(['--root', await tempProject(), '--token', 'console-secret-1'])
  assert.is((await session(server.url)).status, 401)
  assert.is((await session(server.url, 'console-secret-1')).status, 200)
  assert.is((await session(server.url, readFileSync(server.tokenFile, 'utf8').trim())).status, 200)
})

test('with team tokens: they are required, and no local token is written', async () => {
  const server = await startConsole(['--root', await tempProject()], { FOUNDRY_TOKENS: 'rita:read:read-secret-1' })
  assert.is((await session(server.url)).status, 401)
  assert.is((await session(server.url, 'read-secret-1')).status, 200)
  assert.throws(() => statSync(server.tokenFile))
  assert.not.match(server.output(), /local token/)
})

test.run()
