import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The package that declares the `foundry` bin (the app users install beside Marbles). */
export const FOUNDRY_PACKAGE = '@foundry/cli'

/**
 * The `foundry` bin agents get as their MCP server: the `bin.foundry` that `FOUNDRY_PACKAGE`'s
 * package.json declares, resolved from the project root (the copy the project installed), then from
 * the folder the server was started in, then from this module (installed side by side). Undefined
 * when none finds it, or it is not built.
 */
export function resolveFoundryBin(root: string, cwd = process.cwd()): string | undefined {
  for (const from of [join(root, 'package.json'), join(cwd, 'package.json'), fileURLToPath(import.meta.url)]) {
    try {
      const manifest = createRequire(from).resolve(`${FOUNDRY_PACKAGE}/package.json`)
      const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> }).bin?.foundry
      const path = bin && join(dirname(manifest), bin)
      if (path && existsSync(path)) return path
    } catch {
      // Not installed where this looked: try the next place.
    }
  }
  return undefined
}
