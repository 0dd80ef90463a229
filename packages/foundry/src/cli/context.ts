import { resolve } from 'node:path'
import type { Command } from 'commander'
import type { Kernel } from '@foundry/kernel'
import type { ToolRow } from '@foundry/kernel/tools'
import type { Project } from '@foundry/project'
import { FOUNDRY_HINTS } from '../hints.js'
import { writeAll } from '@foundry/server/runtime'
import { retrying } from '@foundry/server/stdio'
import type { ToolName, ToolOutput, ToolResult } from '@foundry/kernel/tools'

/** The options every command accepts (declared on the program). */
export interface GlobalOptions {
  root?: string
  storage?: string
  json?: boolean
  debug?: boolean
}

/** What a command prints: `text` by default, `json` with `--json`. */
export interface CommandOutput {
  text: string
  json: unknown
  /** Non-zero without an error: the command ran and the answer is "no" (an invalid artifact, a rejected write). */
  exitCode?: number
}

/** What a command's action receives. The kernel and the adapters load only when it asks for them. */
export interface CommandContext {
  /** Absolute: `--root`, else `FOUNDRY_ROOT`, else the current directory (where `init` creates a project). */
  dir: string
  /** `--storage`, when given. */
  storage: string | undefined
  /**
   * The project, opened on first call and closed after the command: `--root` or `FOUNDRY_ROOT` when
   * given (it must be a project), else the nearest `.foundry/` at or above the current directory.
   * Rejects NOT_FOUND "no Foundry project at … (run foundry init)"; creates nothing.
   */
  project(): Promise<Project>
  /** Call one MCP tool of the table on the project: the CLI prints what the tool returns. */
  tool<N extends ToolName>(name: N, input: Record<string, unknown>): Promise<ToolResult<ToolOutput<N>>>
}

/** A command's action; commander's trailing options object and Command are passed through. Nothing is printed for `void`. */
export type CommandAction<A extends unknown[]> = (ctx: CommandContext, ...args: A) => Promise<CommandOutput | void>

/**
 * Wrap a command's action: resolve the global options, run it, print its output, and turn a failure
 * into one line on stderr (the stack only with `--debug`) and exit code 1.
 */
export function action<A extends unknown[]>(run: CommandAction<A>): (...args: unknown[]) => Promise<void> {
  return (...args) =>
    runAction((args[args.length - 1] as Command).optsWithGlobals<GlobalOptions>(), (ctx) => run(ctx, ...(args as A)))
}

/** Run one action with these global options, as `action` does for a commander command (the hot path calls it directly). */
export async function runAction(
  globals: GlobalOptions,
  run: (ctx: CommandContext) => Promise<CommandOutput | void>,
): Promise<void> {
  const ctx = commandContext(globals)
  try {
    const output = await run(ctx)
    if (output) {
      writeAll(1, `${globals.json ? JSON.stringify(output.json, null, 2) : output.text.replace(/\n+$/, '')}\n`)
      process.exitCode = output.exitCode ?? 0
    }
  } catch (error) {
    fail(error, globals.debug)
  } finally {
    await ctx.close().catch((error: unknown) => fail(error, globals.debug))
  }
}

/** One line on stderr and exit code 1; the stack too with `--debug`. */
export function fail(error: unknown, debug = false): void {
  const message = error instanceof Error ? error.message : String(error)
  process.stderr.write(
    `error: ${debug && error instanceof Error && error.stack ? error.stack : message.split('\n')[0]}\n`,
  )
  process.exitCode = 1
}

function commandContext(globals: GlobalOptions): CommandContext & { close(): Promise<void> } {
  const dir = resolve(globals.root ?? process.env.FOUNDRY_ROOT ?? process.cwd())
  let opened: Promise<Project> | undefined
  // Retried after a failure: `foundry mcp` serves for hours, and a project initialised or a config.json fixed meanwhile counts.
  const project = retrying(
    () =>
      (opened = import('@foundry/project').then(({ openProject }) =>
        openProject({
          ...(globals.root !== undefined && { root: globals.root }),
          cwd: process.cwd(),
          ...(globals.storage && { overrides: { storage: globals.storage } }),
          onProblem: (p) => process.stderr.write(`warning: skipped ${p.location}: ${p.message}\n`),
          // Events are written after the command's answer (a server's response, the CLI's output); closing waits for them.
          kernel: { hints: FOUNDRY_HINTS, eventsAfterTurn: true },
        }),
      )),
  )
  return {
    dir,
    storage: globals.storage,
    project,
    async tool(name, input) {
      const [{ KERNEL_TOOLS }, { kernel }] = await Promise.all([import('@foundry/kernel/tools'), project()])
      // The kernel validates what a command passes (its messages name the option); the row's types are the MCP edge's.
      const row: ToolRow<Kernel> = KERNEL_TOOLS.find((t) => t.name === name)!
      return (await row.call(kernel, input)) as ToolResult<ToolOutput<typeof name>>
    },
    async close() {
      await (await opened?.catch(() => undefined))?.close()
    },
  }
}
