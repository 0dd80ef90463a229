import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/** Where a workspace's modules are. */
export interface WorkspaceSource {
  /** The `--source` path, or the folder or file found. Absolute. */
  path: string
  /** The module files, sorted. */
  files: string[]
  /** Where `env.schema.json` is looked for: the source folder, or a source file's folder. */
  dir: string
}

export const WORKSPACE_FOLDER = join('.foundry', 'marbles')
export const LEGACY_CONFIG = 'marbles.config.ts'
const MODULE = /^[^._][^/]*\.(ts|mts|js|mjs)$/
const NOT_MODULE = /\.(d|test|spec)\.[mc]?[tj]s$/

/**
 * The workspace's modules: `source` (a file, or a folder's top-level `*.ts|mts|js|mjs` files;
 * sub-folders hold helpers the modules import), else `<root>/.foundry/marbles/`, else the legacy
 * `<root>/marbles.config.ts`. Throws one line naming what is missing.
 */
export function findSource(root: string, source?: string): WorkspaceSource {
  if (source !== undefined) {
    const path = resolve(source)
    if (!existsSync(path)) throw new Error(`Marbles source not found: ${path}`)
    return fromPath(path)
  }
  const folder = join(root, WORKSPACE_FOLDER)
  if (existsSync(folder)) return fromPath(folder)
  const legacy = join(root, LEGACY_CONFIG)
  if (existsSync(legacy)) return fromPath(legacy)
  throw new Error(`No Marbles workspace: neither ${folder} nor ${legacy} exists (pass --source FILE|DIR)`)
}

function fromPath(path: string): WorkspaceSource {
  if (!statSync(path).isDirectory()) return { path, files: [path], dir: dirname(path) }
  const files = readdirSync(path, { withFileTypes: true })
    .filter((e) => e.isFile() && MODULE.test(e.name) && !NOT_MODULE.test(e.name))
    .map((e) => join(path, e.name))
    .sort()
  if (!files.length) throw new Error(`Marbles source ${path} holds no modules (*.ts, *.mts, *.js, *.mjs)`)
  return { path, files, dir: path }
}
