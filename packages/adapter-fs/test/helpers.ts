import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isFoundryError } from '@foundry/kernel'
import * as assert from 'uvu/assert'

const roots: string[] = []
process.on('exit', () => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})

/** A fresh project root under the system temp folder, removed when the test process exits. */
export function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'foundry-fs-'))
  roots.push(root)
  return root
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Move `path`'s modification time one second on, as a hand edit made later than the last write leaves
 * it, whatever the file system's timestamp tick (a change within one tick of a write keeps its time).
 */
export function touchLater(path: string): void {
  const { atime, mtimeMs } = statSync(path)
  utimesSync(path, atime, new Date(mtimeMs + 1000))
}

/** Every file path below `dir`, relative to it. */
export function walk(dir: string, prefix = ''): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix + entry.name
    if (entry.isDirectory()) out.push(rel + '/', ...walk(join(dir, entry.name), rel + '/'))
    else out.push(rel)
  }
  return out
}

export interface Child {
  pid: number
  /** Resolves with the exit code (or the signal's name) and everything printed. */
  done: Promise<{ code: number | string; stdout: string; stderr: string }>
  /** Resolves when the child prints a line starting with `text`. */
  printed(text: string): Promise<void>
  kill(signal: NodeJS.Signals): void
}

/** Run `test/fixtures/<name>.ts` in a real `node` process (TypeScript through tsx). */
export function runFixture(name: string, args: string[]): Child {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'fixtures', `${name}.ts`), ...args],
    {
      cwd: join(import.meta.dirname, '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let stdout = ''
  let stderr = ''
  const waiters: Array<{ text: string; resolve: () => void }> = []
  child.stdout.on('data', (d) => {
    stdout += d
    for (const w of [...waiters])
      if (stdout.split('\n').some((line) => line.startsWith(w.text))) w.resolve(), waiters.splice(waiters.indexOf(w), 1)
  })
  child.stderr.on('data', (d) => (stderr += d))
  const done = new Promise<{ code: number | string; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code: code ?? signal ?? -1, stdout, stderr })),
  )
  return {
    pid: child.pid!,
    done,
    printed: (text) =>
      new Promise<void>((resolve, reject) => {
        waiters.push({ text, resolve })
        void done.then((r) =>
          reject(new Error(`fixture ${name} exited (${r.code}) before printing "${text}": ${r.stderr}`)),
        )
      }),
    kill: (signal) => void child.kill(signal),
  }
}

/** Await `fn` and assert it rejects with a FoundryError of `code` whose message matches `pattern`. */
export async function refused(fn: () => Promise<unknown>, code: string, pattern: RegExp): Promise<void> {
  try {
    await fn()
  } catch (error) {
    assert.ok(isFoundryError(error), String(error))
    assert.is(error.code, code, error.message)
    assert.match(error.message, pattern)
    return
  }
  assert.unreachable(`expected FoundryError ${code}`)
}
