import { existsSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'

// Node built-ins only: the hook bin's fast path imports this before deciding whether to load the kernel.

/** The data folder under a project root: a folder holding it is a Foundry project. */
export const DATA_FOLDER = '.foundry'

/** Where the configuration lives, relative to the project root. */
export const CONFIG_FILE = join(DATA_FOLDER, 'config.json')

export interface FindOptions {
  /** Where the walk up starts. Default `process.cwd()`. */
  cwd?: string
  /** An explicit project root (`--root`); wins over `FOUNDRY_ROOT` and the walk. */
  root?: string
  /** Where `FOUNDRY_ROOT` is read. Default `process.env`. */
  env?: NodeJS.ProcessEnv
  /** A second place to walk up from when nothing is found above `cwd` (the hooks pass `CLAUDE_PROJECT_DIR`). */
  fallback?: string
}

/** True when `dir` holds a `.foundry/` folder. */
export function isProject(dir: string): boolean {
  try {
    return statSync(join(dir, DATA_FOLDER)).isDirectory()
  } catch {
    return false
  }
}

/** The nearest folder at or above `start` holding `.foundry/`, like git finds `.git`; `undefined` when there is none. */
export function findProjectRoot(start: string): string | undefined {
  let dir = resolve(start)
  for (;;) {
    if (isProject(dir)) return dir
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

/**
 * The project `options` name, or `undefined`: the explicit `root`, else `FOUNDRY_ROOT` (either must
 * hold `.foundry/` itself: no walking up from them), else the nearest project at or above `cwd`,
 * else at or above `fallback`. Never creates anything.
 */
export function findProject(options: FindOptions = {}): string | undefined {
  const explicit = explicitRoot(options)
  if (explicit !== undefined) return isProject(explicit) ? explicit : undefined
  return (
    findProjectRoot(options.cwd ?? process.cwd()) ?? (options.fallback ? findProjectRoot(options.fallback) : undefined)
  )
}

/** `--root`, else `FOUNDRY_ROOT`, resolved; `undefined` when neither is given. */
export function explicitRoot(options: Pick<FindOptions, 'root' | 'env'>): string | undefined {
  const named = options.root ?? (options.env ?? process.env).FOUNDRY_ROOT
  return named ? resolve(named) : undefined
}

/**
 * The file of the bin `bin` that package `pkg` declares in its package.json, resolved from each of
 * `from` in turn (files or `package.json` paths: where Node's resolution starts, e.g. the project
 * root's copy first, then beside the running process); undefined when none finds it or it is not built.
 */
export function findInstalledBin(pkg: string, bin: string, from: readonly string[]): string | undefined {
  for (const start of from) {
    try {
      const manifest = createRequire(start).resolve(`${pkg}/package.json`)
      const file = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> }).bin?.[bin]
      const path = file && join(dirname(manifest), file)
      if (path && existsSync(path)) return path
    } catch {
      // Not installed where this looked: try the next place.
    }
  }
  return undefined
}
