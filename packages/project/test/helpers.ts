import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const made: string[] = []

/** An empty folder (not a project). Removed by `cleanup()`. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'foundry-project-test-'))
  made.push(dir)
  return dir
}

/** A project folder (`.foundry/`), with `config` as config.json when given (a string is written as is). */
export function tempProject(config?: object | string): string {
  const root = tempDir()
  mkdirSync(join(root, '.foundry'))
  if (config !== undefined) writeConfig(root, config)
  return root
}

export function writeConfig(root: string, config: object | string): string {
  const file = join(root, '.foundry', 'config.json')
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config))
  return file
}

export function cleanup(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** Every path under `dir`, relative, sorted: what a test compares to show nothing was created. */
export function tree(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort()
}

/** The built kernel, for modules a test writes into a project (they import it by URL, as a third party would by name). */
export const KERNEL_URL = new URL('../node_modules/@foundry/kernel/dist/index.js', import.meta.url).href

/** The built package: child processes load what users load. Build first (`pnpm --filter @foundry/project build`). */
export const PROJECT_DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url))

/** A decision as the seed's example shows it. */
export const flyway = {
  title: 'Persistence layer uses Flyway, not Liquibase',
  body: 'Chosen for the plain-SQL migration format the team already reads.\nWhy: the team reviews SQL, not XML.\nHow to apply: add migrations as V<n>__<name>.sql files.',
  type: 'decision',
  confidence: 'high',
  source: 'adr-0007',
}

/** The error `fn` throws (rejects), or a failure when it does not. */
export async function thrown(fn: () => unknown): Promise<Error & { code?: string }> {
  try {
    await fn()
  } catch (error) {
    return error as Error & { code?: string }
  }
  throw new Error('expected an error')
}
