import { aiSdkHarness, type ModelResolver } from './ai-sdk.js'
import { claudeCodeHarness } from './claude-code.js'
import { codexHarness } from './codex.js'
import { piHarness } from './pi.js'
import { AI_SDK_PROVIDERS, parseHarnessFlags, type CLI_PROVIDERS } from './flags.js'
import type { Harness } from './types.js'

/** The CLI harnesses, by provider name. */
export const CLI_HARNESSES: Record<(typeof CLI_PROVIDERS)[number], typeof claudeCodeHarness> = {
  'claude-code': claudeCodeHarness,
  codex: codexHarness,
  pi: piHarness,
}
export { AI_SDK_PROVIDERS }

export interface HarnessesOptions {
  /**
   * `--harness` values: `<provider>` (offer only the providers named) or `<provider>=<command>` (the
   * executable of a CLI harness). Default: every harness, CLIs found on PATH.
   */
  flags?: string[]
  graceMs?: number
  resolveModel?: ModelResolver
}

/** The harnesses a server offers, by provider name. A flag naming an unknown provider throws one line listing them. */
export function createHarnesses(options: HarnessesOptions = {}): Map<string, Harness> {
  const { commands, only } = parseHarnessFlags(options.flags)
  const offered = (name: string) => !only.size || only.has(name) || commands.has(name)
  const harnesses = new Map<string, Harness>()
  for (const [name, make] of Object.entries(CLI_HARNESSES))
    if (offered(name))
      harnesses.set(
        name,
        make({
          ...(commands.has(name) && { command: commands.get(name)! }),
          ...(options.graceMs !== undefined && { graceMs: options.graceMs }),
        }),
      )
  for (const provider of AI_SDK_PROVIDERS)
    if (offered(provider))
      harnesses.set(
        provider,
        aiSdkHarness({ provider, ...(options.resolveModel && { resolveModel: options.resolveModel }) }),
      )
  return harnesses
}
