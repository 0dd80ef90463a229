import { aiSdkHarness, type ModelResolver } from './ai-sdk.js'
import { claudeCodeHarness } from './claude-code.js'
import { codexHarness } from './codex.js'
import { piHarness } from './pi.js'
import type { Harness } from './types.js'

/** The CLI harnesses, by provider name. */
export const CLI_HARNESSES = { 'claude-code': claudeCodeHarness, codex: codexHarness, pi: piHarness } as const
/** The network providers served through the AI SDK. `mock` is the AI SDK's mock model (what `--dry-run` uses). */
export const AI_SDK_PROVIDERS = ['anthropic', 'mock'] as const

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
  const known = [...Object.keys(CLI_HARNESSES), ...AI_SDK_PROVIDERS]
  const commands = new Map<string, string>()
  const only = new Set<string>()
  for (const flag of options.flags ?? []) {
    const [name, command] = flag.split(/=(.*)/s, 2) as [string, string | undefined]
    if (!known.includes(name)) throw new Error(`--harness ${flag}: unknown provider "${name}"; known: ${known.join(', ')}`)
    if (command !== undefined) {
      if (!(name in CLI_HARNESSES)) throw new Error(`--harness ${flag}: only a CLI harness (${Object.keys(CLI_HARNESSES).join(', ')}) takes a command`)
      commands.set(name, command)
    } else only.add(name)
  }
  const offered = (name: string) => !only.size || only.has(name) || commands.has(name)
  const harnesses = new Map<string, Harness>()
  for (const [name, make] of Object.entries(CLI_HARNESSES))
    if (offered(name)) harnesses.set(name, make({ ...(commands.has(name) && { command: commands.get(name)! }), ...(options.graceMs !== undefined && { graceMs: options.graceMs }) }))
  for (const provider of AI_SDK_PROVIDERS) if (offered(provider)) harnesses.set(provider, aiSdkHarness({ provider, ...(options.resolveModel && { resolveModel: options.resolveModel }) }))
  return harnesses
}
