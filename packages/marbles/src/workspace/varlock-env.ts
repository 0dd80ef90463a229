import { join } from 'node:path'
import { FoundryError } from '@foundry/kernel'

export const VARLOCK_SCHEMA_FILE = '.env.schema'

/**
 * Load the workspace's environment through Varlock (varlock.dev): `.env.schema` in `dir` (its
 * `@required`, `@type`, `@sensitive`, `@currentEnv` … decorators) over `.env`, `.env.local` and the
 * current environment's `.env.<env>` beside it, with `env`'s own variables winning over the files
 * (an empty one counts as unset).
 * Every resolved variable is then set in `env` (so a schema default reaches `process.env`) and the
 * coerced values are returned. A schema that does not parse, or a variable that is missing or
 * invalid, throws one line (INVALID_INPUT) naming the file or the variable: never its value.
 */
export async function loadVarlockEnv(
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Record<string, unknown>> {
  const schema = join(dir, VARLOCK_SCHEMA_FILE)
  const { internal } = await import('varlock').catch((error: unknown) => {
    // Bundled into the marbles bin; an optional peer of the library (it declares Node 22).
    throw new FoundryError('UNSUPPORTED', `${schema} needs Varlock to load: npm i varlock@1`, { cause: error })
  })
  // No git calls (`checkGitIgnored`) and no resolver cache on disk: a start-up reads the files and the environment only.
  const graph = await internal.loadEnvGraph({
    basePath: dir,
    checkGitIgnored: false,
    skipCache: true,
    overrideValues: setVariables(env),
  })
  for (const source of graph.sortedDataSources) {
    const problem = source.errors.find((error) => !error.isWarning) ?? source.resolutionErrors[0]
    if (problem)
      throw new FoundryError(
        'INVALID_INPUT',
        `Invalid ${'fullPath' in source ? String(source.fullPath) : source.label}: ${firstLine(problem.message)}`,
      )
  }
  await graph.resolveEnvValues()
  for (const [name, item] of Object.entries(graph.configSchema)) {
    if (item.isValid) continue
    const error = item.errors.find((e) => !e.isWarning)
    if (!error || error.constructor.name === 'EmptyRequiredValueError')
      throw new FoundryError('INVALID_INPUT', `Environment variable ${name} is missing (required by ${schema})`)
    throw new FoundryError(
      'INVALID_INPUT',
      `Environment variable ${name} is invalid (${schema}): ${withoutValue(firstLine(error.message), env[name] ?? item.resolvedValue)}`,
    )
  }
  for (const [name, value] of Object.entries(graph.getResolvedEnvStringObject()))
    if (value !== undefined) env[name] = value
  return Object.fromEntries(Object.entries(graph.getResolvedEnvObject()).filter(([, value]) => value !== undefined))
}

/** The variables `env` sets: an empty one counts as unset, so a file's value or the schema's default applies (as `env.schema.json` had it). */
const setVariables = (env: NodeJS.ProcessEnv) =>
  Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''))

const firstLine = (text: string) => text.split('\n')[0]!.trim()

/** Varlock's message, unless it quotes the value (then only that the value is not accepted): a secret never reaches a log. */
function withoutValue(message: string, value: unknown): string {
  const text = value === undefined || value === null ? '' : String(value)
  return text && message.includes(text) ? 'its value is not accepted by the schema' : message
}
