import { isAscii } from 'node:buffer'
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
 */
export function runCachedScript<T>(script: URL | string, command?: string): T {
  const file = typeof script === 'string' ? script : fileURLToPath(script)
  const bytes = readFileSync(file)
  // The build escapes what is past ASCII: read as one byte a character, such a script is a third of the work.
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8')
  const cache = cacheFile(file, source, command)
  let cachedData: Buffer | undefined
  try {
    if (cache) cachedData = readFileSync(cache)
  } catch {
    // No cache yet.
  }
  const compiled = new vm.Script(
    `(function (exports, require, module, __filename, __dirname, __import) {${source}\n})`,
    {
      filename: file,
      ...(cachedData && { cachedData }),
    },
  )
  if (cache && (!cachedData || compiled.cachedDataRejected))
    process.once('exit', () => save(cache, compiled, file, source))
  const module = { exports: {} as T }
  ;(compiled.runInThisContext() as ScriptWrapper)(
    module.exports,
    createRequire(file),
    module,
    file,
    dirname(file),
    importModule,
  )
  return module.exports
}

type ScriptWrapper = (
  exports: unknown,
  require: NodeJS.Require,
  module: { exports: unknown },
  filename: string,
  dirname: string,
  load: typeof importModule,
) => void

/**
 * The script's `import()` (the build rewrites it to `__import`): on Node 20 code compiled from V8's cache
 * cannot import by itself, so a module this bundle leaves out (jiti, a project's own adapters, named by
 * an absolute URL or a package of the bin's) is imported from here.
 */
function importModule(specifier: string): Promise<unknown> {
  return import(specifier)
}

/** The script's last line, written by the build: `//# build <sha-256 of the rest>`. Without it, no cache. */
const BUILD_LINE = /\/\/# build ([0-9a-f]{32})\s*$/

function cacheFile(file: string, source: string, command: string | undefined): string | undefined {
  const build = BUILD_LINE.exec(source.slice(-100))?.[1]
  if (!build || process.env.NODE_DISABLE_COMPILE_CACHE) return undefined
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

function save(path: string, compiled: vm.Script, file: string, source: string): void {
  try {
    const partial = `${path}.${process.pid}.tmp`
    writeFileSync(partial, compiled.createCachedData())
    renameSync(partial, path) // whole or not at all: a reader never sees half a cache
    // The caches of this script's other builds are stale: a rebuild or an upgrade leaves no garbage.
    const script = basename(file, '.cjs')
    const build = BUILD_LINE.exec(source.slice(-100))![1]!
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
