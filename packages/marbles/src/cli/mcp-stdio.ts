import type { MarblesHostOptions } from '../mcp/host.js'
import { type GlobalOptions, fail, findRoot, journalOption } from './context.js'

/**
 * `marbles mcp` over stdio, from the global options and `--harness`: what the command runs, and what
 * the bin runs for a plain command line (`plainMcpArgs`) before commander loads. A failure is one line
 * on stderr and exit code 1.
 */
export async function serveMcpStdio(global: GlobalOptions, command: McpCommandOptions): Promise<void> {
  try {
    const root = findRoot(global) ?? process.cwd()
    const { serveMarblesStdio } = await import('../mcp/stdio.js')
    await serveMarblesStdio({ ...hostOptions(root, global, command), console: true })
    process.exitCode = 0
  } catch (error) {
    fail(error, global.debug)
  }
}

/** `marbles mcp`'s own options that reach the engine: `--harness` (repeatable) and `--no-work`. */
export interface McpCommandOptions {
  harness?: string[] | undefined
  work?: boolean
}

/** The engine's options from the global flags, `--harness`, `--no-work` and `MARBLES_KILL_GRACE_MS` (both transports). */
export function hostOptions(
  root: string,
  global: GlobalOptions,
  { harness, work }: McpCommandOptions,
): MarblesHostOptions {
  return {
    ...(work === false && { work: false }),
    root,
    ...(global.source !== undefined && { source: global.source }),
    ...(global.state !== undefined && { state: global.state }),
    ...(global.artifacts !== undefined && { artifacts: global.artifacts }),
    ...(harness && { harness }),
    ...(global.dryRun && { dryRun: true }),
    ...journalOption(global),
    ...(process.env.MARBLES_KILL_GRACE_MS && { killGraceMs: Number(process.env.MARBLES_KILL_GRACE_MS) }),
  }
}

/** The global options that take a value, by flag. */
const VALUED: Record<string, keyof GlobalOptions> = {
  '--root': 'root',
  '--source': 'source',
  '--state': 'state',
  '--artifacts': 'artifacts',
  '--journal-lines': 'journalLines',
  '--journal-bytes': 'journalBytes',
}
const SWITCHES: Record<string, keyof GlobalOptions> = { '--dry-run': 'dryRun', '--json': 'json', '--debug': 'debug' }

/**
 * The options of a plain `marbles mcp` command line (the arguments after the script): `mcp`, global
 * options before or after it and `--harness <value>`s after it, each global once and every value apart,
 * as commander reads them. Anything else (`--http`, `--help`, `--root=x`, a repeated or unknown flag, a
 * value that looks like a flag) is undefined: the bin leaves it to commander, whose answer it is.
 */
export function plainMcpArgs(args: readonly string[]): { global: GlobalOptions; harness?: string[] } | undefined {
  const global: Record<string, string | boolean> = {}
  const harness: string[] = []
  let mcp = false
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!
    const value = args[i + 1]
    const valued = VALUED[flag] ?? (mcp && flag === '--harness' ? 'harness' : undefined)
    const key = valued ?? SWITCHES[flag]
    if (flag === 'mcp' && !mcp) mcp = true
    else if (key === undefined || key in global) return undefined
    else if (!valued) global[key] = true
    else if (value === undefined || value.startsWith('-')) return undefined
    else if (valued === 'harness') harness.push(args[++i]!)
    else global[valued] = args[++i]!
  }
  if (!mcp) return undefined
  return { global: global as GlobalOptions, ...(harness.length && { harness }) }
}
