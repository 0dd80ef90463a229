import { resolve } from 'node:path'
import type { Command } from 'commander'
import { explicitRoot, findProjectRoot } from '@foundry/project/find'
import type { Workspace } from '../workspace/load.js'
import type { MarblesState } from '../state.js'

/** The options every command accepts (declared on the program). */
export interface GlobalOptions {
  root?: string
  state?: string
  artifacts?: string
  source?: string
  dryRun?: boolean
  json?: boolean
  debug?: boolean
  journalLines?: string
  journalBytes?: string
}

/**
 * The engine's journal bounds from `--journal-lines` and `--journal-bytes`, checked here so that a bad
 * flag stops a command (and `marbles mcp`, before it answers `initialize`) with one line; openEngine
 * checks them again (`journalLimits`, the same rule: a whole number of at least 100).
 */
export function journalOption(options: GlobalOptions): { journal?: { lines?: number; bytes?: number } } {
  const journal: { lines?: number; bytes?: number } = {}
  for (const [key, value] of [
    ['lines', options.journalLines],
    ['bytes', options.journalBytes],
  ] as const) {
    if (value === undefined) continue
    const n = Number(value)
    if (!Number.isSafeInteger(n) || n < 100)
      throw new Error(`--journal-${key} must be a whole number of at least 100, got ${value}`)
    journal[key] = n
  }
  return Object.keys(journal).length ? { journal } : {}
}

/**
 * The project a command works on: `--root`, else `FOUNDRY_ROOT`, else the nearest folder holding
 * `.foundry/` at or above `--source`, else at or above the working directory; undefined when there is
 * none (the commands that need one then say so).
 */
export function findRoot(options: Pick<GlobalOptions, 'root' | 'source'>, cwd = process.cwd()): string | undefined {
  const explicit = explicitRoot(options.root !== undefined ? { root: options.root } : {})
  if (explicit !== undefined) return explicit
  return (
    (options.source !== undefined ? findProjectRoot(resolve(cwd, options.source)) : undefined) ?? findProjectRoot(cwd)
  )
}

/** What a command's action receives: the options, and the workspace and state opened on demand (closed after). */
export interface CommandContext {
  options: GlobalOptions
  /** Where `.foundry/marbles/` is looked for: the project `findRoot` finds, else the current folder. */
  root: string
  workspace(): Promise<Workspace>
  state(needKernel: boolean): Promise<MarblesState>
  /** Print a line on stdout. */
  out(line: string): void
  /** Aborted on the first SIGINT or SIGTERM. */
  interrupted: AbortSignal
}

/**
 * Wrap a command's action: it returns its exit code. A failure is one line on stderr (the stack only
 * with `--debug`) and exit code 1.
 */
export function action<A extends unknown[]>(
  run: (ctx: CommandContext, ...args: A) => Promise<number | void>,
): (...args: unknown[]) => Promise<void> {
  return async (...args) => {
    const command = args[args.length - 1] as Command
    const options = command.optsWithGlobals<GlobalOptions>()
    const interrupt = new AbortController()
    const onSignal = () => interrupt.abort()
    // `on`, not `once`: signal-exit (under the fs storage's lock) re-raises a signal it believes nobody else handles.
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
    let opened: Promise<MarblesState> | undefined
    const found = findRoot(options)
    const root = found ?? process.cwd()
    const ctx: CommandContext = {
      options,
      root,
      async workspace() {
        const { loadWorkspace } = await import('../workspace/load.js')
        return loadWorkspace({ root, ...(options.source !== undefined && { source: options.source }) })
      },
      state(needKernel) {
        if (found === undefined && options.state === undefined && !options.dryRun) return noProject(root)
        return (opened ??= import('../state.js').then(({ openState }) =>
          openState({
            needKernel,
            ...(found !== undefined && { root: found }),
            ...(options.state !== undefined && { state: options.state }),
            ...(options.artifacts !== undefined && { artifacts: options.artifacts }),
            ...(options.dryRun && { dryRun: true }),
          }),
        ))
      },
      out: (line) => void process.stdout.write(`${line}\n`),
      interrupted: interrupt.signal,
    }
    try {
      const code = await run(ctx, ...(args as A))
      process.exitCode = code ?? 0
    } catch (error) {
      fail(error, options.debug)
    } finally {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      await (await opened?.catch(() => undefined))?.close().catch((error: unknown) => fail(error, options.debug))
    }
  }
}

/**
 * No project above the working directory nor `--source`: a rejection saying how to name one. The kernel
 * is imported here, not at the top: `marbles mcp` answers `initialize` before loading it.
 */
async function noProject(cwd: string): Promise<never> {
  const { FoundryError } = await import('@foundry/kernel')
  throw new FoundryError(
    'NOT_FOUND',
    `no Foundry project at ${cwd} or above it: pass --root <project> (or --source inside it, or --state <path>), or run foundry init`,
  )
}

/** One line on stderr and exit code 1; the stack too with `--debug`. */
export function fail(error: unknown, debug = false): void {
  const message = error instanceof Error ? error.message : String(error)
  process.stderr.write(
    `error: ${debug && error instanceof Error && error.stack ? error.stack : message.split('\n')[0]}\n`,
  )
  process.exitCode = 1
}
