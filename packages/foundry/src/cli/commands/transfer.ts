import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Command } from 'commander'
import type { copyStorage, mergeStorage, Storage, StorageProblem } from '@foundry/kernel'
import { action, type CommandContext } from '../context.js'
import { progressLine } from './transfer-progress.js'

type CopyReport = Awaited<ReturnType<typeof copyStorage>>
type MergeReport = Awaited<ReturnType<typeof mergeStorage>>

const NOUNS: Record<string, string> = {
  facts: 'fact',
  runbooks: 'runbook',
  contracts: 'contract',
  artifacts: 'artifact',
  logs: 'log',
}

/** `foundry export <dir>`: the project's records, logs and events into `<dir>/.foundry/`, the folder layout: content only. */
export function exportCommand(): Command {
  return new Command('export')
    .description(
      'Copy every record, log and event of the project into <dir>/.foundry/ (the folder layout, content only: no cache/), from either storage',
    )
    .argument('<dir>', 'the folder to export into')
    .option('--force', 'replace an export the folder already holds (<dir>/.foundry/ is deleted first)')
    .action(
      action(async (ctx, dir: string, options: { force?: boolean }) => {
        const report = await withFolder(ctx, dir, 'export', options.force === true, async (project, folder) => {
          const { copyStorage } = await import('@foundry/kernel')
          const progress = progressLine('export')
          try {
            return await copyStorage(project, folder, { onProblem: warn, onProgress: progress.onProgress })
          } finally {
            progress.done()
          }
        })
        return { text: `Exported ${describe(copied(report))} to ${resolve(dir, '.foundry')}`, json: report }
      }),
    )
}

/**
 * `foundry import <dir> [--replace]`: merge `<dir>/.foundry/` into the project (the kernel's
 * `mergeStorage`), then rebuild the index. Nothing the project holds is overwritten unless
 * `--replace`: identical facts are skipped, a fact whose id is taken is renumbered (the mapping is
 * printed), and a record that differs is reported as a conflict and left as it is. Conflicts do
 * not fail the command (exit 0): everything else was imported, and `--json` lists them.
 */
export function importCommand(): Command {
  return new Command('import')
    .description(
      'Merge every record, log and event of <dir>/.foundry/ (the folder layout) into the project, whatever its storage: identical facts are skipped, taken ids renumbered, differing records reported as conflicts',
    )
    .argument('<dir>', 'the folder to import from')
    .option(
      '--replace',
      "overwrite the project's records (facts by id) with the imported ones where they differ, instead of merging",
    )
    .action(
      action(async (ctx, dir: string, options: { replace?: boolean }) => {
        const report = await withFolder(ctx, dir, 'import', false, async (project, folder) => {
          const { mergeStorage } = await import('@foundry/kernel')
          const progress = progressLine('import')
          try {
            return await mergeStorage(folder, project, {
              replace: options.replace === true,
              onProblem: warn,
              onProgress: progress.onProgress,
            })
          } finally {
            progress.done()
          }
        })
        const index = await ctx.tool('memory_index', {})
        const stored = sum(report.added, report.replaced)
        const text = [
          `Imported ${describe({ ...stored, events: report.events })} from ${resolve(dir, '.foundry')}`,
          ...details(report),
          index.text,
        ]
        return { text: text.join('\n'), json: { ...counts(stored), ...report, index: index.structured.index } }
      }),
    )
}

/** The lines after the totals: what was skipped, renumbered, marked, dropped or left in conflict. */
function details(report: MergeReport): string[] {
  const lines: string[] = []
  const skipped = Object.entries(report.unchanged).map(([c, n]) => `${n} ${noun(c, n)}`)
  if (skipped.length) lines.push(`Skipped ${skipped.join(', ')} identical to the project's`)
  const duplicates = new Set(report.duplicates)
  for (const [from, to] of Object.entries(report.ids))
    lines.push(`${from} → ${to}${duplicates.has(from) ? " (identical to the project's, not stored again)" : ''}`)
  for (const id of report.superseded) lines.push(`${id} is now superseded, as the imported history says`)
  for (const u of report.unresolved)
    lines.push(`${report.ids[u.id] ?? u.id}: dropped ${u.field} ${u.ref} (not in the import)`)
  for (const c of report.conflicts)
    lines.push(
      `conflict: ${NOUNS[c.collection] ?? `${c.collection} record`} ${c.key} differs from the project's; kept the project's (--replace takes the imported one)`,
    )
  return lines
}

/**
 * Run `fn` with the project's storage and a folder storage at `dir` (its derived state in a
 * temporary folder, so the folder gets content only). An import needs an export there; an export
 * needs none there, unless `force` (then the old one is deleted first): two exports into one folder
 * would merge into something neither run described.
 */
async function withFolder<T>(
  ctx: CommandContext,
  dir: string,
  direction: 'export' | 'import',
  force: boolean,
  fn: (project: Storage, folder: Storage) => Promise<T>,
): Promise<T> {
  const { adapters, root, storage } = await ctx.project()
  const { FoundryError } = await import('@foundry/kernel')
  const at = resolve(dir)
  if (at === root && adapters.storage.kind === 'fs') throw new Error(`${at} is the project itself; name another folder`)
  const data = join(at, '.foundry')
  const held = lstatSync(data, { throwIfNoEntry: false })
  if (direction === 'import') {
    if (!lstatSync(at, { throwIfNoEntry: false }))
      throw new FoundryError(
        'NOT_FOUND',
        `${at} does not exist: name the folder you exported into (foundry export <dir>)`,
      )
    if (!held?.isDirectory())
      throw new FoundryError(
        'NOT_FOUND',
        `${at} holds no export (no .foundry/ folder in it): name the folder you exported into (foundry export <dir>)`,
      )
  } else if (held && (!held.isDirectory() || readdirSync(data).length > 0)) {
    if (!force)
      throw new FoundryError(
        'CONFLICT',
        `${at} already holds an export (${data}): name an empty folder, or add --force to replace it`,
      )
    rmSync(data, { recursive: true, force: true })
  }
  const { openStorage } = await import('@foundry/project')
  const cache = mkdtempSync(join(tmpdir(), 'foundry-transfer-'))
  try {
    const folder = await openStorage(dir, { kind: 'fs', cache })
    try {
      return await fn(storage, folder)
    } finally {
      await folder.close?.()
    }
  } finally {
    rmSync(cache, { recursive: true, force: true })
  }
}

function warn(p: StorageProblem) {
  process.stderr.write(`warning: skipped ${p.location}: ${p.message}\n`)
}

type Totals = { facts: number; runbooks: number; contracts: number; artifacts: number; events: number }

const copied = (r: CopyReport): Totals => r
const counts = (by: Record<string, number>) => ({
  facts: by.facts ?? 0,
  runbooks: by.runbooks ?? 0,
  contracts: by.contracts ?? 0,
  artifacts: by.artifacts ?? 0,
})
const noun = (collection: string, n: number) =>
  NOUNS[collection] ? `${NOUNS[collection]}${n === 1 ? '' : 's'}` : `${collection} records`

function sum(...parts: Array<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const part of parts) for (const [k, n] of Object.entries(part)) out[k] = (out[k] ?? 0) + n
  return out
}

function describe(by: Partial<Totals> & Record<string, number>): string {
  const c = counts(by)
  return `${c.facts} facts, ${c.runbooks} runbooks, ${c.contracts} contracts, ${c.artifacts} artifacts, ${by.events ?? 0} events`
}
