import { Command } from 'commander'
import pkg from '../../package.json' with { type: 'json' }
import { cancelCommand } from './commands/cancel.js'
import { distillCommand } from './commands/distill.js'
import { listCommand } from './commands/list.js'
import { pruneCommand } from './commands/prune.js'
import { mcpCommand } from './commands/mcp.js'
import { runCommand } from './commands/run.js'
import { rerunCommand } from './commands/rerun.js'
import { runsCommand } from './commands/runs.js'
import { serveCommand } from './commands/serve.js'
import { signalCommand } from './commands/signal.js'
import { watchCommand } from './commands/watch.js'
import { workerCommand } from './commands/worker.js'
import { fail } from './context.js'

/** Every `marbles` command, in the order `--help` lists them. */
export const COMMANDS: Array<() => Command> = [
  runCommand,
  watchCommand,
  runsCommand,
  pruneCommand,
  cancelCommand,
  signalCommand,
  rerunCommand,
  listCommand,
  serveCommand,
  workerCommand,
  mcpCommand,
  distillCommand,
]

/** The `marbles` program: the global options, then every command. */
export function createProgram(commands = COMMANDS): Command {
  const program = new Command('marbles')
    .description('Run workflows declared in TypeScript, and watch their runs from any process.')
    .version(pkg.version)
    .option('--root <dir>', 'the Foundry project (default: $FOUNDRY_ROOT, else the nearest folder holding .foundry/)')
    .option(
      '--source <path>',
      'the workspace: a module file or a folder of modules (default: <root>/.foundry/marbles, else <root>/marbles.config.ts)',
    )
    .option(
      '--state <path>',
      "where runs and journals live: a folder, or a .db file for SQLite (default: the project's storage, under .foundry/)",
    )
    .option('--artifacts <path>', 'where large outputs go: a folder or a .db file (default: the state)')
    .option(
      '--journal-lines <n>',
      'the most records one run journals: past it log lines are dropped and a step fails the run (default 10000)',
    )
    .option('--journal-bytes <n>', 'the most bytes one run journals, the same way (default 16777216: 16 MiB)')
    .option('--dry-run', 'an in-memory engine: nothing is saved, and no other process can watch')
    .option('--json', 'JSON output (NDJSON for journals)')
    .option('--debug', 'print stack traces')
    .configureHelp({ showGlobalOptions: true })
  for (const make of commands) {
    const command = make()
    command.copyInheritedSettings(program)
    program.addCommand(command)
  }
  return program
}

/** Run the CLI; resolves when the command is done (exit code in `process.exitCode`). */
export async function runCli(argv: string[] = process.argv): Promise<void> {
  try {
    await createProgram()
      .exitOverride((error) => {
        throw error
      })
      .parseAsync(argv)
  } catch (error) {
    const code = (error as { code?: string; exitCode?: number }).code
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help')
      return void (process.exitCode = 0)
    if (code?.startsWith('commander.')) return void (process.exitCode = (error as { exitCode?: number }).exitCode ?? 1)
    fail(error, argv.includes('--debug'))
  }
}
