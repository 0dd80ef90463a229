import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

export interface ChildOptions {
  command: string
  args: string[]
  cwd: string
  env?: NodeJS.ProcessEnv
  signal: AbortSignal
  /** After the signal aborts: SIGTERM to the child's process group, then SIGKILL after this long. Default 2 000 ms. */
  graceMs?: number
  /** Text written to the child's stdin, then stdin is closed (an empty stdin otherwise). */
  stdin?: string
  onStdout(line: string): void
  onStderr(line: string): void
}

export interface ChildExit {
  code: number | null
  signal: NodeJS.Signals | null
  /** The last stderr lines, for an error message. */
  stderrTail: string[]
}

/** Default grace between asking a harness child to stop and killing its process tree. */
export const KILL_GRACE_MS = 2000

/**
 * Run a CLI harness: its own process group (so its whole tree can be killed), stdout and stderr read
 * line by line. When `signal` aborts, the group gets SIGTERM, then SIGKILL after `graceMs`. Resolves
 * when the child exits (its output read); rejects with the signal's reason when aborted, or when the
 * command cannot start (named, with the fix).
 */
/**
 * Process groups of harness children still running. A child told to stop gets its grace period
 * while this process lives; if this process exits first (a server shutting down, a test ending),
 * what is left of those groups is killed with it, never left behind as orphans.
 */
const liveGroups = new Set<number>()
let reaperInstalled = false
function trackGroup(pid: number): void {
  liveGroups.add(pid)
  if (reaperInstalled) return
  reaperInstalled = true
  process.once('exit', () => {
    for (const group of liveGroups) {
      try {
        process.kill(-group, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  })
}

export function runChild(options: ChildOptions): Promise<ChildExit> {
  const { signal } = options
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<ChildExit>((resolve, reject) => {
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true, // a process group of its own: killed whole
    })
    if (child.pid) trackGroup(child.pid)
    const tail: string[] = []
    let killTimer: ReturnType<typeof setTimeout> | undefined
    const group = (sig: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, sig)
      } catch {
        // already gone
      }
    }
    const onAbort = () => {
      group('SIGTERM')
      killTimer = setTimeout(() => group('SIGKILL'), options.graceMs ?? KILL_GRACE_MS)
      killTimer.unref()
    }
    signal.addEventListener('abort', onAbort, { once: true })
    const out = createInterface({ input: child.stdout! })
    out.on('line', (line) => options.onStdout(line))
    const err = createInterface({ input: child.stderr! })
    err.on('line', (line) => {
      tail.push(line)
      if (tail.length > 5) tail.shift()
      options.onStderr(line)
    })
    child.stdin!.on('error', () => {}) // a child that never reads its stdin
    child.stdin!.end(options.stdin ?? '')
    child.on('error', (error: NodeJS.ErrnoException) => {
      signal.removeEventListener('abort', onAbort)
      reject(error.code === 'ENOENT' ? new Error(`${options.command} not found on PATH: install it, or pass --harness <provider>=<path>`) : error)
    })
    let closedStreams = 0
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
    const finish = () => {
      if (!exit || closedStreams < 2) return
      signal.removeEventListener('abort', onAbort)
      // The tree may outlive its leader: whatever it left in the group goes with it.
      if (signal.aborted) group('SIGKILL')
      if (child.pid) liveGroups.delete(child.pid)
      clearTimeout(killTimer)
      if (signal.aborted) reject(signal.reason)
      else resolve({ ...exit, stderrTail: tail })
    }
    out.on('close', () => (closedStreams++, finish()))
    err.on('close', () => (closedStreams++, finish()))
    child.on('exit', (code, sig) => {
      // The leader is gone; a group it left behind is still killed at this process's exit when aborted.
      if (child.pid && !signal.aborted) liveGroups.delete(child.pid)
      exit = { code, signal: sig }
      finish()
    })
  })
}

/** Parse one line of a JSON stream; undefined for a line that is not a JSON object (a banner, a warning). */
export function parseLine(line: string): Record<string, unknown> | undefined {
  const trimmed = line.trim()
  if (!trimmed.startsWith('{')) return undefined
  try {
    const value = JSON.parse(trimmed) as unknown
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

export const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)
