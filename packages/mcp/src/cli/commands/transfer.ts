import { resolve } from 'node:path'
import { Command } from 'commander'
import type { CopyReport, Storage } from '@foundry/kernel'
import { action, type CommandContext } from '../context.js'

/** `foundry export <dir>`: the project's records and events into `<dir>/.foundry/`, the folder layout. */
export function exportCommand(): Command {
  return new Command('export')
    .description('Copy every record and event of the project into <dir>/.foundry/ (the folder layout), from either storage')
    .argument('<dir>', 'the folder to export into')
    .action(
      action(async (ctx, dir: string) => {
        const report = await withFolder(ctx, dir, (project, folder) => copy(project, folder))
        return { text: `Exported ${describe(report)} to ${resolve(dir, '.foundry')}`, json: report }
      }),
    )
}

/** `foundry import <dir>`: the records and events of `<dir>/.foundry/` into the project, then the index rebuilt. */
export function importCommand(): Command {
  return new Command('import')
    .description('Copy every record and event of <dir>/.foundry/ (the folder layout) into the project, whatever its storage')
    .argument('<dir>', 'the folder to import from')
    .action(
      action(async (ctx, dir: string) => {
        const report = await withFolder(ctx, dir, (project, folder) => copy(folder, project))
        const index = await ctx.tool('memory_index', {})
        return { text: `Imported ${describe(report)} from ${resolve(dir, '.foundry')}\n${index.text}`, json: { ...report, index: index.structured.index } }
      }),
    )
}

/** Run `fn` with the project's storage and a folder storage at `dir`, then release the folder. */
async function withFolder<T>(ctx: CommandContext, dir: string, fn: (project: Storage, folder: Storage) => Promise<T>): Promise<T> {
  const { adapters, root, storage } = await ctx.project()
  if (resolve(dir) === root && adapters.storage.kind === 'fs') throw new Error(`${resolve(dir)} is the project itself; name another folder`)
  const { openStorage } = await import('@foundry/project')
  const folder = await openStorage(dir, 'fs')
  try {
    return await fn(storage, folder)
  } finally {
    await folder.close?.()
  }
}

async function copy(from: Storage, to: Storage): Promise<CopyReport> {
  const { copyStorage } = await import('@foundry/kernel')
  return copyStorage(from, to, { onProblem: (p) => process.stderr.write(`warning: skipped ${p.location}: ${p.message}\n`) })
}

function describe(r: CopyReport): string {
  return `${r.facts} facts, ${r.runbooks} runbooks, ${r.contracts} contracts, ${r.artifacts} artifacts, ${r.events} events`
}
