import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

export interface ChildOptions {
  command: string
  args: string[]
  cwd: string
  /** Default: this process's environment through `agentEnvironment`. */
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

/** Variables an agent CLI gets by name: the system's basics, proxies and certificates. */
const AGENT_NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'TZ',
  'TMPDIR',
  'TMP',
  'TEMP',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'CLAUDE_CONFIG_DIR',
  'SystemRoot',
  'APPDATA',
  'LOCALAPPDATA',
  'USERPROFILE',
  'COMSPEC',
  'PATHEXT',
])
/** Variables an agent CLI gets by prefix: the locale, XDG folders, and model providers' settings and keys. */
const AGENT_PREFIXES = [
  'LC_',
  'XDG_',
  'ANTHROPIC_',
  'CLAUDE_CODE_',
  'OPENAI_',
  'CODEX_',
  'PI_',
  'AWS_',
  'GOOGLE_',
  'GEMINI_',
  'VERTEX_',
  'AZURE_',
  'MISTRAL_',
  'GROQ_',
  'OPENROUTER_',
  'XAI_',
  'DEEPSEEK_',
  'CEREBRAS_',
  'OLLAMA_',
]

/**
 * The environment an agent CLI runs with: an allow-list, never this process's whole environment.
 * Foundry's and Marbles' own variables (`FOUNDRY_TOKEN`, `FOUNDRY_DATABASE_URL` and its password,
 * the hook variables such as `CLAUDE_PROJECT_DIR`) never reach an agent: it reaches the project's
 * memory through the `foundry mcp` entry it is handed. `MARBLES_AGENT_ENV` (comma-separated names)
 * passes more variables on purpose.
 */
export function agentEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const extra = new Set(
    (env.MARBLES_AGENT_ENV ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  )
  const kept: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(env))
    if (
      value !== undefined &&
      (AGENT_NAMES.has(name) || extra.has(name) || AGENT_PREFIXES.some((prefix) => name.startsWith(prefix)))
    )
      kept[name] = value
  return kept
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
      env: options.env ?? agentEnvironment(process.env),
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
      reject(
        error.code === 'ENOENT'
          ? new Error(`${options.command} not found on PATH: install it, or pass --harness <provider>=<path>`)
          : error,
      )
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
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

export const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined
