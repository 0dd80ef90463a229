import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Command } from 'commander'
import { action } from '../context.js'

/** `foundry init`: config.json (with the storage chosen), the storage itself, and the memory index. */
export function initCommand(): Command {
  return new Command('init')
    .description('Create .foundry/ in the project: config.json, the storage (--storage fs|sqlite, default fs) and the memory index')
    .action(
      action(async (ctx) => {
        const { CONFIG_FILE, readConfig } = await ctx.config()
        const file = join(ctx.root, CONFIG_FILE)
        const existing = existsSync(file) ? await readConfig(ctx.root) : undefined
        const storage = ctx.storage ?? existing?.storage ?? 'fs'
        if (existing && existing.storage !== storage)
          throw new Error(
            `The project already uses storage "${existing.storage}" (${file}); move the data with \`foundry export\` and \`foundry import\`, then change "storage"`,
          )
        if (!existing) {
          await mkdir(join(ctx.root, '.foundry'), { recursive: true })
          await writeFile(file, `${JSON.stringify({ storage }, null, 2)}\n`)
        }
        const index = await ctx.tool('memory_index', {})
        const head = existing ? `Already initialised: ${file} (storage ${storage})` : `Initialised ${join(ctx.root, '.foundry')} (storage ${storage})`
        return { text: `${head}\n${index.text}`, json: { root: ctx.root, config: file, created: !existing, storage, ...index.structured } }
      }),
    )
}
