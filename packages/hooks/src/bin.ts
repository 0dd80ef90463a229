#!/usr/bin/env node
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { runCachedScript } from '@foundry/project/cached-script'
import { findProject } from '@foundry/project/find'
import { privateRuntimeDir, writeAll } from '@foundry/server/runtime'
import { EXIT_ERROR, EXIT_OK, errorLine, parseJsonObject, readStdin } from './io.js'
import { HOOK_NAMES, isHookName, SERVED_HOOKS, type HookName } from './names.js'
import type { HookAnswer } from './socket.js'

/**
 * `foundry-hook <hook>`: the command a Claude Code hook runs. Reads the event JSON on stdin, prints
 * the hook's answer on stdout, and exits 0, or 1 with one line on stderr; never 2 (which would block).
 *
 * This entry (built as CommonJS, `foundry-hook.cjs`: no ES module loader, no facades for built-ins)
 * imports only what it needs to ask a running hook server (socket.ts, and with it `crypto` and `net`,
 * loaded only when a hook socket exists; team.ts only when FOUNDRY_URL is set); the kernel and the
 * adapters load only when the hook runs in this process, from one script compiled through V8's code
 * cache (`foundry-hook-run.cjs`, built from run.ts).
 */
const USAGE = `Usage: foundry-hook <${HOOK_NAMES.join(' | ')}>  (the Claude Code event JSON on stdin)\n`

async function main(): Promise<void> {
  const name = process.argv[2]
  if (name === undefined || name === '--help' || name === '-h') {
    process.stdout.write(USAGE)
    return
  }
  if (!isHookName(name)) {
    process.stderr.write(errorLine(name, new Error(`unknown hook; use one of ${HOOK_NAMES.join(', ')}`)))
    process.exitCode = EXIT_ERROR
    return
  }
  let stdin: string
  try {
    stdin = await readStdin()
  } catch (error) {
    process.stderr.write(errorLine(name, error))
    process.exitCode = EXIT_ERROR
    return
  }
  // A team server first (FOUNDRY_URL), then the project's hook server, then this process; none blocks the prompt.
  const result = (await team(name, stdin)) ?? (await served(name, stdin)) ?? (await inProcess(name, stdin))
  writeAll(1, result.stdout)
  writeAll(2, result.stderr)
  process.exitCode = result.exitCode === EXIT_OK ? EXIT_OK : EXIT_ERROR // never 2, whoever answered
}

/** The answer of the team server FOUNDRY_URL names (team.ts), when it is set. */
async function team(name: HookName, stdin: string): Promise<HookAnswer | undefined> {
  if (!process.env.FOUNDRY_URL) return undefined
  const { askTeam } = await import('./team.js')
  return askTeam(name, stdin, process.env, (line) => process.stderr.write(`foundry-hook: ${line}\n`))
}

/** The answer of the project's hook server, when the hook is one it serves and a server runs. */
async function served(name: HookName, stdin: string): Promise<HookAnswer | undefined> {
  if (!SERVED_HOOKS.has(name) || process.env.FOUNDRY_HOOK_SERVER === 'off') return undefined
  let cwd: string
  try {
    const raw = parseJsonObject(stdin)
    cwd = typeof raw.cwd === 'string' && raw.cwd ? raw.cwd : process.cwd()
  } catch {
    return undefined // the in-process run reports the bad input
  }
  const root = findProject({ cwd, fallback: process.env.CLAUDE_PROJECT_DIR })
  if (!root || !mayHaveSocket()) return undefined
  const { askServer } = await import('./socket.js')
  return askServer(root, name, stdin)
}

/**
 * False when no hook server of this user listens anywhere: the private folder holds no `hooks-*`
 * socket (or is missing). Then nothing loads `crypto` to name the project's socket, nor `net`.
 * Named pipes (Windows) are not listed: there the socket is always asked.
 */
function mayHaveSocket(): boolean {
  if (process.platform === 'win32') return true
  try {
    return readdirSync(privateRuntimeDir()).some((name) => name.startsWith('hooks-'))
  } catch {
    return false
  }
}

async function inProcess(name: HookName, stdin: string): Promise<HookAnswer> {
  // This entry is built as CommonJS: `__dirname` is its folder (no URL to build: Node's URL class costs a first use).
  const { runHook } = runCachedScript<typeof import('./run.js')>(join(__dirname, 'foundry-hook-run.cjs'), name)
  return runHook(name, stdin)
}

void main()
