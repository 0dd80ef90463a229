import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { findInstalledBin } from '@foundry/project/find'

/** The package that declares the `foundry` bin (the app users install beside Marbles). */
export const FOUNDRY_PACKAGE = '@foundry/cli'

/**
 * The `foundry` bin agents get as their MCP server: resolved from the project root (the copy the
 * project installed), then from the folder the server was started in, then from this module
 * (installed side by side). Undefined when none finds it, or it is not built.
 */
export function resolveFoundryBin(root: string, cwd = process.cwd()): string | undefined {
  return findInstalledBin(FOUNDRY_PACKAGE, 'foundry', [
    join(root, 'package.json'),
    join(cwd, 'package.json'),
    fileURLToPath(import.meta.url),
  ])
}
