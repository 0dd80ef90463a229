import type { GlobalOptions } from './context.js'

/**
 * The global options of a plain `foundry mcp` command line (the arguments after the script): `mcp`, and
 * `--root <dir>`, `--storage <kind>`, `--json` and `--debug` before or after it, each once and a value
 * apart, as commander reads them. Anything else (`--http`, `--help`, `--root=x`, a repeated or unknown
 * flag, a value that looks like a flag) is undefined: the bin leaves it to commander, whose answer it is.
 */
export function plainMcpArgs(args: readonly string[]): GlobalOptions | undefined {
  const globals: Record<string, string | boolean> = {}
  let mcp = false
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]!
    const value = args[i + 1]
    const key = flag.slice(2)
    if (flag === 'mcp' && !mcp) mcp = true
    else if (key in globals) return undefined
    else if ((flag === '--root' || flag === '--storage') && value !== undefined && !value.startsWith('-'))
      globals[key] = args[++i]!
    else if (flag === '--json' || flag === '--debug') globals[key] = true
    else return undefined
  }
  return mcp ? (globals as GlobalOptions) : undefined
}
