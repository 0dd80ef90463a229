import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'

// Node built-ins only: a bin imports this at start-up, before anything else of Foundry loads.

/**
 * Run a bin's program, one CommonJS script (tsup.preset.ts `cachedScript`, named by its URL or
 * absolute path), through V8's code cache, and return its exports. Parsing a megabyte of bundled source and compiling the functions a command
 * runs is most of what a short-lived process spends before its own work; with the cache, a later start
 * of the same build on the same Node reads the compiled code instead.
 *
 * The cache is a folder of the user's own under the temporary folder (mode 0700, and not used when
 * another user owns it), one file per script build (the hash on its last line), Node version and `command` (the functions a
 * command runs differ: `foundry list` and `foundry mcp` each get theirs). It is written when the
 * process exits, so it holds every function the command compiled. A cache is only a cache: one that
 * cannot be read, that V8 rejects (another V8, other flags) or that cannot be written is made again
 * or left out, never an error. Node's own `NODE_DISABLE_COMPILE_CACHE` turns it off.
 *
 * `links` are the modules the script takes from the one that loads it rather than from its own
 * folder (an on-demand script takes the kernel its program already evaluated): `require(name)` of
 * one of them returns what its function returns.
 */
export function runCachedScript<T>(script: URL | string, command?: string, links: Links = {}): T {
  const file = typeof script === 'string' ? script : fileURLToPath(script)
  const bytes = readFileSync(file)
  const built = BUILD_LINE.exec(bytes.toString('latin1', Math.max(0, bytes.length - 100)))
  // A built script is its own wrapper, ASCII unless its build line says `utf8`: V8 compiles the file's
  // text as read, with no copy of a megabyte into a wrapped string first.
  const source = built
    ? bytes.toString(built[2] ? 'utf8' : 'latin1')
    : `(function (exports, require, module, __filename, __dirname, __import, __load) {${bytes.toString('utf8')}\n})`
  const cache = built ? cacheFile(file, built[1]!, command) : undefined
  let cachedData: Buffer | undefined
  try {
    if (cache) cachedData = readFileSync(cache)
  } catch {
    // No cache yet.
  }
  const compiled = new vm.Script(source, { filename: file, ...(cachedData && { cachedData }) })
  if (cache && (!cachedData || compiled.cachedDataRejected))
    process.once('exit', () => save(cache, compiled, file, built![1]!))
  const module = { exports: {} as T }
  const fromFolder = createRequire(file)
  const linked = Object.keys(links).length
    ? Object.assign((name: string) => (Object.hasOwn(links, name) ? links[name]!() : fromFolder(name)), fromFolder)
    : fromFolder
  ;(compiled.runInThisContext() as ScriptWrapper)(
    module.exports,
    linked,
    module,
    file,
    dirname(file),
    importModule,
    (name, scriptLinks) => runCachedScript(join(dirname(file), name), command, scriptLinks),
  )
  return module.exports
}

/** What a script takes from the one that loads it: a module name, and the function that returns the module. */
type Links = Record<string, () => unknown>

type ScriptWrapper = (
  exports: unknown,
  require: NodeJS.Require,
  module: { exports: unknown },
  filename: string,
  dirname: string,
  load: typeof importModule,
  /** `__load(name, links)`: a script beside this one (an on-demand package), run the same way, with the same command's cache. */
  loadScript: (name: string, links: Links) => unknown,
) => void

/**
 * The script's `import()` (the build rewrites it to `__import`): on Node 20 code compiled from V8's cache
 * cannot import by itself, so a module this bundle leaves out (jiti, a project's own adapters, named by
 * an absolute URL or a package of the bin's) is imported from here.
 */
function importModule(specifier: string): Promise<unknown> {
  return import(specifier)
}

/**
 * A built script's last line: `//# build <sha-256 of the rest>`, then ` utf8` where the text is not
 * ASCII. It marks a script the build wrapped in its function (`__filename`, `__import`, … are its
 * parameters) and is the cache's key. A script without it is wrapped here, and gets no cache.
 */
const BUILD_LINE = /\/\/# build ([0-9a-f]{32})( utf8)?\s*$/

function cacheFile(file: string, build: string, command: string | undefined): string | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined
  try {
    const uid = process.getuid?.()
    const dir = join(tmpdir(), `foundry-compile-cache-${uid ?? 'user'}`)
    // Never the temporary folder itself: where it is missing, nothing of ours creates it.
    try {
      mkdirSync(dir, { mode: 0o700 })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined
    }
    // Never run compiled code another user could have written.
    if (uid !== undefined && statSync(dir).uid !== uid) return undefined
    // The build's hash, not the file's size or time: V8 checks only a script's length, and packed files share one time.
    const named = command && /^[a-z][a-z0-9-]{0,39}$/.test(command) ? command : '_'
    return join(dir, `${basename(file, '.cjs')}-${build}-${process.version}-${process.arch}-${named}.bin`)
  } catch {
    return undefined
  }
}

function save(path: string, compiled: vm.Script, file: string, build: string): void {
  try {
    const partial = `${path}.${process.pid}.tmp`
    writeFileSync(partial, compiled.createCachedData())
    renameSync(partial, path) // whole or not at all: a reader never sees half a cache
    // The caches of this script's other builds are stale: a rebuild or an upgrade leaves no garbage.
    const script = basename(file, '.cjs')
    for (const name of readdirSync(dirname(path))) {
      const other = name.startsWith(`${script}-`) && /^([0-9a-f]{32})-/.exec(name.slice(script.length + 1))?.[1]
      if (other && other !== build) rmSync(join(dirname(path), name), { force: true })
    }
  } catch {
    // A cache that cannot be written is left out.
  }
}

/** The command a bin's arguments name (a cache per command): the first that is neither a flag nor the value of a flag in `valued`. */
export function commandOf(args: readonly string[], valued: readonly string[] = []): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (valued.includes(args[i]!)) i++
    else if (!args[i]!.startsWith('-')) return args[i]
  }
  return undefined
}
