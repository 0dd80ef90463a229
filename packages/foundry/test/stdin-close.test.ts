import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanup, cli, tempDir } from './helpers.js'
import { startInitialized, toolCall } from './raw.js'

/*
 * A client that goes away mid-call leaves no process behind: `foundry mcp` gets a memory_write that
 * waits for the write lock (another process holds it), its stdin closes, and the process exits within
 * a bound (the lock wait alone is 30 s), without answering the call.
 */
const test = suite('foundry mcp: stdin closed mid-call')
test.after(cleanup)

const PACKAGE = fileURLToPath(new URL('..', import.meta.url))
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

test('a call waiting on a held lock, then stdin closes: the process exits within 15 s', async () => {
  const root = tempDir()
  assert.is(cli(['init'], { cwd: root }).code, 0)
  // Another process holds the project's write lock until it is killed.
  const holder = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { openProject } from '@foundry/project'; const p = await openProject({ root: ${JSON.stringify(root)} }); await p.storage.exclusive(async () => { process.stdout.write('held\\n'); setInterval(() => {}, 1000); await new Promise(() => {}) })`,
    ],
    { cwd: PACKAGE, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  try {
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve())
      holder.once('exit', (code) => reject(new Error(`the lock holder exited (${code})`)))
    })
    const server = await startInitialized(root)
    await server.send(
      toolCall(1, 'memory_write', { title: 'Waits for the lock', body: 'It never gets it.', type: 'convention' }),
    )
    server.child.stdin.end()
    const pid = server.child.pid!
    const deadline = Date.now() + 15_000
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    assert.not.ok(
      alive(pid),
      `foundry mcp still runs 15 s after its stdin closed; stderr: ${server.stderr().slice(-500)}`,
    )
    assert.match(
      server.stderr(),
      /stdin ended; 1 request\(s\) still unanswered after 5000 ms: closing/,
      server.stderr() + JSON.stringify(server.received()),
    )
    assert.not.ok(
      server.received().some((m) => m.id === 1 && m.result && !m.result.isError),
      'the write was never acknowledged',
    )
  } finally {
    holder.kill('SIGKILL')
  }
})

test.run()
