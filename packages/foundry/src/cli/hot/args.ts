import type { GlobalOptions } from '../context.js'

/** A call the hot path answers: `foundry list` or `foundry search <query>`, with only global options. */
export interface HotCall {
  command: 'list' | 'search'
  /** The query of `search`. */
  query?: string
  globals: GlobalOptions
}

/**
 * The hot call `args` (the bin's arguments) make, or undefined for anything else: `foundry list` and
 * `foundry search <query>` with no option of their own, and only the global options `--json`,
 * `--debug`, `--root <dir>` and `--storage <kind>` (anywhere, as commander reads them). Any other
 * option, help, a value in `--flag=value` form or one starting with `-` goes to the whole program,
 * which answers it (or reports it) as before.
 */
export function hotCall(args: readonly string[]): HotCall | undefined {
  const globals: GlobalOptions = {}
  const positional: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--json') globals.json = true
    else if (arg === '--debug') globals.debug = true
    else if (arg === '--root' || arg === '--storage') {
      const value = args[++i]
      if (value === undefined || value.startsWith('-')) return undefined
      globals[arg === '--root' ? 'root' : 'storage'] = value
    } else if (arg.startsWith('-')) return undefined
    else positional.push(arg)
  }
  if (positional.length === 1 && positional[0] === 'list') return { command: 'list', globals }
  if (positional.length === 2 && positional[0] === 'search')
    return { command: 'search', query: positional[1]!, globals }
  return undefined
}
