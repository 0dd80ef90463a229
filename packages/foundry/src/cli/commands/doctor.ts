import { Command } from 'commander'
import { action, type GlobalOptions } from '../context.js'

/** `foundry doctor`: check the project's stored data; `--fix` repairs what can be repaired without losing a fact. */
export function doctorCommand(): Command {
  return new Command('doctor')
    .description(
      'Check the project (stale write lock, temporary files, caches, INDEX.md, unreadable facts, SQLite integrity); exits 1 when something needs fixing',
    )
    .option(
      '--fix',
      'repair what can be repaired without losing a fact (unreadable facts are moved to .foundry/quarantine/ with the reason)',
    )
    .action(
      action(async (ctx, options: { fix?: boolean }, command: Command) => {
        const globals = command.optsWithGlobals<GlobalOptions>()
        const { doctorProject } = await import('@foundry/project')
        const report = await doctorProject({
          ...(globals.root !== undefined && { root: globals.root }),
          cwd: process.cwd(),
          ...(ctx.storage && { overrides: { storage: ctx.storage } }),
          fix: options.fix ?? false,
        })
        const lines = report.findings.map(
          (f) => `${f.status}: ${f.check}: ${f.message}${f.path && !f.message.includes(f.path) ? ` (${f.path})` : ''}`,
        )
        const open = report.findings.filter((f) => f.status === 'problem').length
        const unfixable = report.findings.filter((f) => f.status === 'unfixable').length
        const summary = report.healthy
          ? `healthy: ${report.root} (storage ${report.storage})${report.findings.some((f) => f.status === 'fixed') ? ', after the repairs above' : ''}`
          : `${open ? `${open} to fix (run foundry doctor --fix)` : ''}${open && unfixable ? '; ' : ''}${unfixable ? `${unfixable} that doctor cannot fix` : ''}: ${report.root} (storage ${report.storage})`
        return { text: [...lines, summary].join('\n'), json: report, exitCode: report.healthy ? 0 : 1 }
      }),
    )
}
