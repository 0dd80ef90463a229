import { join } from 'node:path'
import { Command } from 'commander'
import { action } from '../context.js'

/** `foundry init`: make the folder a project (config.json with the storage chosen), then the storage and the memory index. */
export function initCommand(): Command {
  return new Command('init')
    .description(
      'Create .foundry/ in the project: config.json, the storage (--storage fs|sqlite|postgres, default fs) and the memory index',
    )
    .action(
      action(async (ctx) => {
        const { initProject } = await import('@foundry/project')
        const init = await initProject({ root: ctx.dir, ...(ctx.storage && { storage: ctx.storage }) })
        const index = await ctx.tool('memory_index', {})
        const lines = [
          init.created
            ? `Initialised ${join(init.root, '.foundry')} (storage ${init.storage})`
            : `Already initialised: ${init.file} (storage ${init.storage})`,
          ...(init.parent
            ? [`This is a new project nested inside the one at ${init.parent}: commands under ${init.root} now use it.`]
            : []),
          ...(init.migrated
            ? [`Rewrote ${init.file} in the current shape: "storage" and "retrieval" are { "kind": …, …options }.`]
            : []),
          index.text,
        ]
        return {
          text: lines.join('\n'),
          json: {
            root: init.root,
            config: init.file,
            created: init.created,
            migrated: init.migrated,
            storage: init.storage,
            ...(init.parent && { parent: init.parent }),
            ...index.structured,
          },
        }
      }),
    )
}
