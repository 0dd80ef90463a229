/** The CLI harnesses' provider names (registry.ts maps each to its harness). */
export const CLI_PROVIDERS = ['claude-code', 'codex', 'pi'] as const
/** The network providers served through the AI SDK. `mock` is the AI SDK's mock model (what `--dry-run` uses). */
export const AI_SDK_PROVIDERS = ['anthropic', 'mock'] as const

/** What `--harness` values ask for. */
export interface HarnessFlags {
  /** Executables of CLI harnesses, by provider (`<provider>=<command>`). */
  commands: Map<string, string>
  /** The providers named alone (`<provider>`): when any is, only those (and the ones given a command) are offered. */
  only: Set<string>
}

/**
 * Read `--harness` values: `<provider>` or `<provider>=<command>`. A flag naming an unknown provider, or
 * a command for a provider that is no CLI, throws one line listing them. Imports nothing, so a server
 * checks its flags before it answers `initialize`.
 */
export function parseHarnessFlags(flags: readonly string[] = []): HarnessFlags {
  const known: readonly string[] = [...CLI_PROVIDERS, ...AI_SDK_PROVIDERS]
  const commands = new Map<string, string>()
  const only = new Set<string>()
  for (const flag of flags) {
    const [name, command] = flag.split(/=(.*)/s, 2) as [string, string | undefined]
    if (!known.includes(name))
      throw new Error(`--harness ${flag}: unknown provider "${name}"; known: ${known.join(', ')}`)
    if (command !== undefined) {
      if (!(CLI_PROVIDERS as readonly string[]).includes(name))
        throw new Error(`--harness ${flag}: only a CLI harness (${CLI_PROVIDERS.join(', ')}) takes a command`)
      commands.set(name, command)
    } else only.add(name)
  }
  return { commands, only }
}
