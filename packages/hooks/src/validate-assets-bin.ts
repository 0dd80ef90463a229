#!/usr/bin/env node
import { formatAssetReport, validateAssets } from './validate-assets.js'

/**
 * `foundry-validate-assets [folder…]`: check the agent definitions and skills of each folder (a
 * project or a plugin; default the current one). Prints `file:line: message` per violation and
 * exits 1 when there is any. A folder that does not exist (or is a file) is an error on stderr
 * naming it, and exit 1; the other folders are still checked.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2)
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write('Usage: foundry-validate-assets [folder…]  (default: the current folder)\n')
    return
  }
  let failed = false
  for (const root of args.length ? args : ['.']) {
    try {
      const report = await validateAssets({ root })
      if (args.length > 1) process.stdout.write(`${report.root}\n`)
      process.stdout.write(`${formatAssetReport(report)}\n`)
      failed ||= report.violations.length > 0
    } catch (error) {
      process.stderr.write(`foundry-validate-assets: ${error instanceof Error ? error.message : String(error)}\n`)
      failed = true
    }
  }
  process.exitCode = failed ? 1 : 0
}

main().catch((error: unknown) => {
  process.stderr.write(`foundry-validate-assets: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
