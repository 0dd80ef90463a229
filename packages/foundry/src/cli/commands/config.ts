import { Command } from 'commander'
import { action } from '../context.js'

/** One line of `foundry config`: a key, its effective value, and where the value came from. */
interface Setting {
  key: string
  value: unknown
  from: string
}

/** Variables whose values are secrets, or hold one (a URL's password): shown as set, never printed. */
const SECRET = /TOKEN|URL/

/**
 * `foundry config`: the effective configuration of the project: which storage and retrieval, every
 * kernel key with its value, and each from where (the file, the profile, the default, a flag), then
 * the environment variables Foundry reads that are set (secrets shown as set, never printed).
 */
export function configCommand(): Command {
  return new Command('config')
    .description(
      'The effective configuration: storage, retrieval and every config.json key, each with where its value came from; the FOUNDRY_*/MARBLES_* variables that are set',
    )
    .action(
      action(async (ctx, _options: unknown, command: Command) => {
        const [{ locateProject, readProjectConfig, ENVIRONMENT }, { DEFAULT_CONFIG, PROFILES }] = await Promise.all([
          import('@foundry/project'),
          import('@foundry/kernel'),
        ])
        const given = command.optsWithGlobals<{ root?: string }>().root
        const root = locateProject({ ...(given !== undefined && { root: given }), cwd: process.cwd() })
        const file = await readProjectConfig(root)
        const written = file.normalized
        const source = file.exists ? file.file : 'no config.json'
        const settings: Setting[] = []
        for (const seam of ['storage', 'retrieval'] as const) {
          const choice = file[seam]
          const flag = seam === 'storage' && ctx.storage !== undefined
          settings.push({
            key: seam,
            value: shown({ kind: choice.kind, ...choice.options }),
            from: flag ? `--storage (the file's must match)` : written[seam] !== undefined ? source : 'default',
          })
        }
        const profile = PROFILES[file.config.profile] ?? {}
        const walk = (
          defaults: object,
          resolved: Record<string, unknown>,
          fromFile: Record<string, unknown> | undefined,
          fromProfile: Record<string, unknown> | undefined,
          prefix: string,
        ) => {
          for (const [key, fallback] of Object.entries(defaults)) {
            const path = `${prefix}${key}`
            if (fallback && typeof fallback === 'object') {
              walk(
                fallback,
                resolved[key] as Record<string, unknown>,
                fromFile?.[key] as Record<string, unknown> | undefined,
                fromProfile?.[key] as Record<string, unknown> | undefined,
                `${path}.`,
              )
              continue
            }
            const from =
              fromFile?.[key] !== undefined
                ? source
                : fromProfile?.[key] !== undefined
                  ? `profile ${file.config.profile}`
                  : 'default'
            settings.push({ key: path, value: resolved[key], from })
          }
        }
        walk(
          DEFAULT_CONFIG,
          file.config as unknown as Record<string, unknown>,
          written,
          profile as Record<string, unknown>,
          '',
        )
        const environment = ENVIRONMENT.filter((v) => process.env[v.name] !== undefined).map((v) => ({
          name: v.name,
          value: SECRET.test(v.name) ? '(set)' : process.env[v.name]!,
        }))
        const width = Math.max(...settings.map((s) => s.key.length))
        const lines = [
          `Foundry configuration of ${root}`,
          '',
          ...settings.map((s) => `  ${s.key.padEnd(width)}  ${JSON.stringify(s.value)}  (${s.from})`),
          '',
          environment.length ? 'Environment:' : 'Environment: no FOUNDRY_* or MARBLES_* variable is set.',
          ...environment.map((v) => `  ${v.name}=${v.value}`),
          '',
          'Every key, its type and default: docs/CONFIG.md.',
        ]
        return { text: lines.join('\n'), json: { root, file: file.exists ? file.file : null, settings, environment } }
      }),
    )
}

/**
 * An adapter's options fit to print: a URL's password (`user:pw@`, `?password=`) replaced by `***`,
 * and the value of any key named like a password, secret or token by `(set)`. Any adapter's options go
 * through it, whatever its kind.
 */
function shown(value: unknown, key = ''): unknown {
  if (/password|secret|token/i.test(key) && value !== undefined && value !== null) return '(set)'
  if (typeof value === 'string')
    return value
      .replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@\s]*?:)[^/?#\s]*@/i, '$1***@')
      .replace(/([?&]password=)[^&#\s]*/gi, '$1***')
  if (Array.isArray(value)) return value.map((v) => shown(v))
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shown(v, k)]))
  return value
}
