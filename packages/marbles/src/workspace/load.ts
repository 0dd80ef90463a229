import { relative } from 'node:path'
import { collectDefinitions, type Definitions } from '../define/registry.js'
import { loadEnv } from './env.js'
import { findSource, type WorkspaceSource } from './source.js'

export interface Workspace {
  source: WorkspaceSource
  definitions: Definitions
  /** The variables the environment schema declares (`.env.schema`, or the deprecated `env.schema.json`), loaded and checked. */
  env: Record<string, unknown>
}

export interface LoadOptions {
  /** Where `.foundry/marbles/` (or the legacy `marbles.config.ts`) is looked for. */
  root: string
  /** `--source FILE|DIR`. */
  source?: string
  env?: NodeJS.ProcessEnv
}

/**
 * Find the workspace, load and check its environment (`loadEnv`: Varlock), then import its modules with jiti (TypeScript without a
 * build step; each import runs the module's top level, which should only declare) and collect the
 * definitions they export. Every failure is one line naming the file (or the variable).
 */
export async function loadWorkspace(options: LoadOptions): Promise<Workspace> {
  const source = findSource(options.root, options.source)
  const env = await loadEnv(source.dir, options.env)
  const { createJiti } = await import('jiti')
  const jiti = createJiti(source.dir + '/', { moduleCache: false, fsCache: false, interopDefault: false })
  const modules: Array<{ origin: string; values: unknown[] }> = []
  for (const file of source.files) {
    const origin = relative(process.cwd(), file) || file
    let exports: Record<string, unknown>
    try {
      exports = (await jiti.import(file)) as Record<string, unknown>
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      throw new Error(`Cannot load ${origin}: ${message.split('\n')[0]}`)
    }
    modules.push({ origin, values: Object.values(exports ?? {}) })
  }
  return { source, definitions: collectDefinitions(modules), env }
}
