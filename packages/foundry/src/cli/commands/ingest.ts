import { Command } from 'commander'
import { action } from '../context.js'

/**
 * `foundry ingest <paths…> [--dry-run]`: what the project already wrote down (ADRs, CLAUDE.md,
 * AGENTS.md, Cursor rules, Copilot instructions) as facts, through the same write path as
 * `foundry write`; a second run writes nothing unless a source changed.
 */
export function ingestCommand(): Command {
  return new Command('ingest')
    .description(
      'Turn ADRs and agent instruction files (CLAUDE.md, AGENTS.md, .cursor/rules, .github/copilot-instructions.md) into facts; idempotent',
    )
    .argument(
      '<paths...>',
      'folders or files to read (folders are walked; ADRs are numbered .md files in a folder named for decisions)',
    )
    .option('--dry-run', 'say what would be written and what it would supersede; write nothing')
    .action(
      action(async (ctx, paths: string[], options: { dryRun?: boolean }) => {
        const [{ kernel }, { ingest }] = await Promise.all([ctx.project(), import('@foundry/ingest')])
        const progress = process.stderr.isTTY
          ? (done: number, total: number) => process.stderr.write(`\ringest ${done}/${total}`)
          : undefined
        const report = await ingest(kernel, paths, {
          cwd: process.cwd(),
          dryRun: options.dryRun === true,
          ...(progress && { onProgress: progress }),
        })
        if (progress) process.stderr.write('\n')
        const lines: string[] = []
        for (const step of report.steps) {
          if (step.action === 'unchanged') continue
          const what =
            step.action === 'duplicate'
              ? `exists: ${step.id} (identical fact)`
              : `${report.dryRun ? 'would create' : `created: ${step.id}`}${step.supersedes ? ` (supersedes ${step.supersedes})` : ''}${step.shelved ? ', forgotten at once' : ''}`
          lines.push(`${step.file}:${step.line} ${what} "${step.title}"`)
        }
        for (const problem of report.problems) lines.push(`error: ${problem.file}:${problem.line}: ${problem.message}`)
        for (const skipped of report.skipped) lines.push(`skipped ${skipped.file}: ${skipped.reason}`)
        const unchanged = report.steps.filter((s) => s.action === 'unchanged').length
        lines.push(
          `${report.dryRun ? 'Dry run: would write' : 'Wrote'} ${report.created} fact${report.created === 1 ? '' : 's'} from ${report.files.length} file${report.files.length === 1 ? '' : 's'}` +
            ` (${report.chains} supersede link${report.chains === 1 ? '' : 's'}, ${unchanged} unchanged${report.problems.length ? `, ${report.problems.length} error${report.problems.length === 1 ? '' : 's'}` : ''}).`,
        )
        return { text: lines.join('\n'), json: report, exitCode: report.problems.length ? 1 : 0 }
      }),
    )
}
