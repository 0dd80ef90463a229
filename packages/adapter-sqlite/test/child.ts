import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const packageDir = fileURLToPath(new URL('..', import.meta.url))

/** Start a fixture script (`test/fixtures/<name>.ts`) in a new Node process, TypeScript through tsx. */
export function startChild(name: string, args: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', `test/fixtures/${name}.ts`, ...args], { cwd: packageDir })
}

/** Run a fixture to the end; resolves with its stdout, rejects with its stderr on a non-zero exit. */
export function runChild(name: string, args: string[]): Promise<string> {
  const child = startChild(name, args)
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (err += d))
  return new Promise((resolve, reject) =>
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${name} exited with ${code}: ${err.trim()}`)),
    ),
  )
}

/** Resolves when the child prints `line` on stdout. */
export function waitForLine(child: ChildProcessWithoutNullStreams, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    child.stderr.on('data', (d) => (err += d))
    child.stdout.on('data', (d) => {
      out += d
      if (out.split('\n').includes(line)) resolve()
    })
    child.on('close', (code) => reject(new Error(`child exited with ${code} before printing ${line}: ${err.trim()}`)))
  })
}
