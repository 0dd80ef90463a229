import { resolve } from 'node:path'
import { Command } from 'commander'
import { action } from '../context.js'

/**
 * `foundry validate-assets`: agents declare model: and effort: (one of low, medium, high, xhigh),
 * SKILL.md bodies stay within 500 lines (@foundry/hooks). Exit 1 on any violation, and on a folder
 * that does not exist (an error naming it).
 */
export function validateAssetsCommand(): Command {
  return new Command('validate-assets')
    .description(
      'Check that agent definitions declare model: and effort: and that SKILL.md bodies stay within 500 lines; exits 1 on any violation or a missing folder',
    )
    .argument('[dir]', 'a project or plugin folder (default: the project root)')
    .action(
      action(async (ctx, dir: string | undefined) => {
        const { validateAssets, formatAssetReport } = await import('@foundry/hooks/validate-assets')
        const report = await validateAssets({ root: dir === undefined ? ctx.dir : resolve(dir) })
        return { text: formatAssetReport(report), json: report, exitCode: report.violations.length ? 1 : 0 }
      }),
    )
}
