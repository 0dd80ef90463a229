import { Command } from 'commander'
import pkg from '../../package.json' with { type: 'json' }
import { COMMANDS } from './commands/index.js'
import { fail } from './context.js'

/** The `foundry` program: the global options, then every command of `COMMANDS`. */
export function createProgram(commands = COMMANDS): Command {
  const program = new Command('foundry')
    .description('Project memory, runbooks, contracts and token budgets for coding agents.')
    .version(pkg.version)
    .option(
      '--root <dir>',
      'the project root (default: $FOUNDRY_ROOT, else the nearest folder holding .foundry/ at or above the current one)',
    )
    .option(
      '--storage <kind>',
      'override the "storage" kind of .foundry/config.json: fs, sqlite, postgres (its URL from FOUNDRY_DATABASE_URL), or one registered in "adapters"',
    )
    .option('--json', "print JSON for scripts (the MCP tool's structuredContent where there is one)")
    .option('--debug', 'print stack traces')
    .configureHelp({ showGlobalOptions: true })
  for (const make of commands) {
    const command = make()
    command.copyInheritedSettings(program)
    for (const sub of command.commands) sub.copyInheritedSettings(program)
    program.addCommand(command)
  }
  return program
}

/** Run the CLI; resolves when the command is done (exit code in `process.exitCode`). */
export async function runCli(argv: string[] = process.argv): Promise<void> {
  try {
    await createProgram().parseAsync(argv)
  } catch (error) {
    fail(error, argv.includes('--debug'))
  }
}
