import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Options } from 'tsup'

/** Lets bundled CommonJS (commander, proper-lockfile, yaml) `require` Node built-ins from an ES module bin. */
const REQUIRE_SHIM = "import { createRequire as __foundryRequire } from 'node:module'; const require = __foundryRequire(import.meta.url);"

/**
 * The native module, an optional dependency of the packages that use it (tsup leaves `dependencies`
 * and `peerDependencies` external, not `optionalDependencies`): never bundled, loaded only to open SQLite.
 */
const NATIVE = ['better-sqlite3']

/** A package's library build: ESM and .d.ts for Node 20, dependencies left to the consumer's resolver (the bins bundle them). */
export function library(entry: Record<string, string>, extra: Options = {}): Options {
  return { entry, format: ['esm'], dts: true, clean: true, target: 'node20', platform: 'node', external: NATIVE, ...extra }
}

/**
 * A bin: one bundle with code splitting, so a short-lived process resolves no packages at start-up
 * and loads a chunk only when it runs it. The native better-sqlite3 stays external; an entry keeps
 * its own `#!` line.
 */
export function bundledBin(entry: Record<string, string>, extra: Options = {}): Options {
  return {
    entry,
    outDir: 'dist/bin',
    format: ['esm'],
    dts: false,
    clean: true,
    splitting: true,
    target: 'node20',
    platform: 'node',
    noExternal: [/^(?!better-sqlite3$)/],
    external: NATIVE,
    banner: { js: REQUIRE_SHIM },
    ...extra,
  }
}

/**
 * A bin's entry as one CommonJS file, `dist/bin/<name>.cjs`: for a bin that starts often and loads
 * little (foundry-hook). Node starts a CommonJS main without its ES module loader, and a built-in
 * `require`d from it gets no ES module facade: ~7 ms of CPU a process on this machine. No code
 * splitting; `import.meta.url` is shimmed from the file's path. Top-level `await` is not allowed.
 */
export function commonJsBin(entry: Record<string, string>, extra: Options = {}): Options {
  return { ...oneCommonJsFile(entry), ...extra }
}

/**
 * What `commonJsBin` and `cachedScript` build alike: each entry as one CommonJS file `dist/bin/<name>.cjs`,
 * everything bundled but the native better-sqlite3, `import.meta.url` shimmed from the file's path.
 */
function oneCommonJsFile(entry: Record<string, string>): Options {
  return {
    entry,
    outDir: 'dist/bin',
    format: ['cjs'],
    outExtension: () => ({ js: '.cjs' }),
    dts: false,
    // dist/bin is the ES module bin's (bundledBin cleans it as every build starts); this build writes its own files.
    clean: false,
    splitting: false,
    target: 'node20',
    platform: 'node',
    shims: true,
    noExternal: [/^(?!better-sqlite3$)/],
    external: NATIVE,
  }
}

/**
 * The script with every character past ASCII escaped (`\u2019`): what esbuild leaves in regular
 * expressions and comments. Node reads a one-byte script about three times faster (a 2 MB program:
 * 7.6 ms as UTF-8, 0.5 ms as ASCII). When such a character follows a backslash (an escape would change
 * its meaning), the script is left as it is, in UTF-8.
 */
function ascii(text: string): string {
  if (/\\[^\x00-\x7f]/.test(text)) return text
  return text.replace(/[^\x00-\x7f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/**
 * The script's dynamic imports. A bundled module's waits a turn of the event loop (below). `await
 * import(…)` of a module the bundle leaves out (jiti, a project's own adapters) becomes `await
 * __import(…)`, the ES module function `runCachedScript` passes in: on Node 20, `import()` in code
 * compiled from V8's cache fails ("A dynamic import callback was not specified"). Any other `import(`
 * left in the code fails the build, naming the script.
 */
function dynamicImports(text: string, script: string): string {
  // A bundled module's `import()` (esbuild: `Promise.resolve().then(() => (init_x(), …))`) waits one turn of
  // the event loop first, as an ES module's import waits for its file: input already read is handled
  // before the module's evaluation holds the thread (a server answers `initialize` while its SDK loads).
  const rewritten = text
    .replace(/Promise\.resolve\(\)\.then\(\(\)\s*=>\s*\(init_/g, '__foundryLater().then(() => (init_')
    // Declared after the "use strict" directive, which holds only as the program's first statement.
    .replace(/^("use strict";)?/, '$1var __foundryLater = () => new Promise((resolve) => setImmediate(resolve));\n')
    .replace(/\bawait import\(/g, 'await __import(')
  const left = rewritten.split('\n').find((line) => /(^|[^\w$.@'"`])import\(/.test(line) && !/^\s*(\*|\/\/)/.test(line))
  if (left) throw new Error(`${script}: a dynamic import the cached script cannot run (await it, or bundle the module): ${left.trim().slice(0, 200)}`)
  return rewritten
}

/**
 * What a bin's script reaches only through `import()`: the adapters the registry loads by kind, the
 * RE2 engine of project contracts, and the YAML library (the file storage loads it to write, or to
 * read a front matter edited by hand). Each is built as a script of its own beside the bin's scripts
 * (`onDemandScripts`), so a process that never loads it neither reads its bytes nor compiles them.
 */
export const ON_DEMAND = ['@foundry/adapter-sqlite', '@foundry/adapter-postgres', '@foundry/retriever-minisearch', 're2js', 'yaml']

/** The slice of esbuild's plugin API `onDemandScripts` uses (tsup hands its own esbuild to a plugin). */
interface ClosureBuild {
  esbuild: {
    build(options: object): Promise<{ outputFiles: { text: string }[]; metafile: { outputs: Record<string, { imports: { path: string; external?: boolean }[] }> } }>
  }
  resolve(path: string, options: { resolveDir: string; kind: string; pluginData: unknown }): Promise<{ path: string; errors: unknown[] }>
  onResolve(
    options: { filter: RegExp },
    callback: (args: { path: string; resolveDir: string; kind: string; pluginData?: unknown }) => unknown,
  ): void
  onLoad(options: { filter: RegExp; namespace: string }, callback: (args: { path: string; pluginData?: unknown }) => unknown): void
}

/**
 * The kernel's entry points: its library build's (`packages/kernel/tsup.config.ts`), and the sources a
 * bin's script builds it from (`kernelFromSource`).
 */
export const KERNEL_ENTRIES: Record<string, string> = {
  index: 'src/index.ts',
  'adapter/index': 'src/adapter-api.ts',
  'tools/index': 'src/tools/index.ts',
  'testing/index': 'src/testing/index.ts',
}

/**
 * The kernel built from its TypeScript sources into a bin's script, where the packages the script bundles
 * import its library build: module by module, so what the script never reaches is left out, and
 * TypeBox, which the library build carries inside, stays a package of its own (`onFirstUse`).
 */
function kernelFromSource() {
  const RESOLVING = Symbol('kernel-from-source')
  return {
    name: 'kernel-from-source',
    setup(build: ClosureBuild) {
      build.onResolve({ filter: /^@foundry\/kernel(\/|$)/ }, async (args) => {
        if (args.pluginData === RESOLVING) return undefined // the resolve below asks the plugins again
        const found = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: RESOLVING })
        const built = /^(.*)[/\\]dist[/\\](.+)\.js$/.exec(found.path)
        const source = built && KERNEL_ENTRIES[built[2]!.replace(/\\/g, '/')]
        if (!source) throw new Error(`kernel-from-source: ${args.path} resolves to ${found.path}, not one of the kernel's entries`)
        return { path: join(built[1]!, source) }
      })
    },
  }
}

/**
 * TypeBox in a bin's script: ~500 modules that cost a new process ~10 ms to evaluate and ~200 KB of code
 * cache to read, which a hook, `foundry list` or a session's first search never run (the kernel builds
 * its schemas on first use and checks the common inputs by plain code). They are built as one script
 * of their own, `on-demand-typebox.cjs`, holding each entry point below; in the bin's script each entry
 * point is a stand-in that runs that script on the first read of any of its names. Importing another
 * entry point fails the build.
 */
const FIRST_USE_PACKAGE = 'typebox'
const FIRST_USE_ENTRIES = ['typebox', 'typebox/type', 'typebox/compile', 'typebox/value']

function onFirstUse(scripts: Map<string, string>) {
  const RESOLVING = Symbol('on-first-use')
  const name = `on-demand-${FIRST_USE_PACKAGE}.cjs`
  let script: Promise<void> | undefined
  return {
    name: 'on-first-use',
    setup(build: ClosureBuild) {
      build.onResolve({ filter: new RegExp(`^${FIRST_USE_PACKAGE}(/|$)`) }, async (args) => {
        if (args.pluginData === RESOLVING) return undefined // the resolve below asks the plugins again
        const entry = FIRST_USE_ENTRIES.indexOf(args.path)
        if (entry < 0) throw new Error(`on-first-use: ${args.path} is not one of ${FIRST_USE_ENTRIES.join(', ')}: add it there`)
        const found = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: RESOLVING })
        // The entries together, once: one copy of the package's modules, whichever entry is read first.
        script ??= build.esbuild
          .build({
            stdin: {
              contents: FIRST_USE_ENTRIES.map((path, i) => `export * as e${i} from ${JSON.stringify(path)}`).join('\n'),
              resolveDir: args.resolveDir,
            },
            bundle: true,
            write: false,
            outfile: name,
            format: 'cjs',
            platform: 'node',
            target: 'node20',
            minifyWhitespace: true,
            logLevel: 'error',
          })
          .then(({ outputFiles }) => void scripts.set(name, outputFiles[0]!.text))
        await script
        // Named `.cjs`: a CommonJS stand-in, whatever the extension of the file it stands for.
        return { path: `${found.path}.cjs`, namespace: 'on-first-use', pluginData: entry }
      })
      build.onLoad({ filter: /.*/, namespace: 'on-first-use' }, (args) => ({
        // No name is copied: esbuild's `__toESM` makes each importer's namespace an object whose prototype
        // is the exports' prototype, so a name read there falls through to the proxy, which runs the
        // script on its first read of anything but `__esModule`.
        contents: [
          `var loaded; var load = () => loaded || (loaded = __load(${JSON.stringify(name)}, {}).e${args.pluginData as number});`,
          `module.exports = Object.create(new Proxy({}, {`,
          `  get: (_, key) => (key === '__esModule' ? true : typeof key === 'symbol' ? undefined : load()[key]),`,
          `  has: (_, key) => key in load(),`,
          `}));`,
        ].join('\n'),
        loader: 'js',
      }))
    },
  }
}

/** The file an on-demand package is built to, beside the scripts: `on-demand-adapter-sqlite.cjs`. */
function onDemandName(path: string): string {
  const parts = path.split(/[/\\]/)
  const at = parts.lastIndexOf('node_modules')
  const name = at >= 0 ? parts.slice(at + 1, parts[at + 1]!.startsWith('@') ? at + 3 : at + 2).join('/') : parts[parts.lastIndexOf('packages') + 1]!
  return `on-demand-${name.replace(/^@foundry\//, '').replace(/[^a-z0-9]+/gi, '-')}.cjs`
}

/**
 * Each package of `packages` bundled on its own as CommonJS (its dependencies inside it, but the
 * workspace's `@foundry/*` packages and the native better-sqlite3), kept in `scripts` for the build to
 * write beside the bin's scripts; the bin's script holds only a stub that runs it through `__load`
 * (`runCachedScript`) on first `import()`, linking the `@foundry/*` modules it requires to the script's
 * own (one kernel in the process). A megabyte of adapters and engines the common commands never run
 * is then neither read nor held by every start.
 */
function onDemandScripts(packages: readonly string[], scripts: Map<string, string>) {
  const RESOLVING = Symbol('on-demand')
  const wanted = new RegExp(`^(${packages.map((name) => name.replace(/[/.]/g, '\\$&')).join('|')})$`)
  return {
    name: 'on-demand-scripts',
    setup(build: ClosureBuild) {
      build.onResolve({ filter: wanted }, async (args) => {
        if (args.pluginData === RESOLVING) return undefined // the resolve below asks the plugins again
        const found = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: RESOLVING })
        return found.errors.length ? undefined : { path: found.path, namespace: 'on-demand' }
      })
      build.onLoad({ filter: /.*/, namespace: 'on-demand' }, async (args) => {
        const { outputFiles, metafile } = await build.esbuild.build({
          entryPoints: [args.path],
          bundle: true,
          write: false,
          metafile: true,
          outfile: 'on-demand.cjs',
          format: 'cjs',
          platform: 'node',
          target: 'node20',
          minifyWhitespace: true,
          external: ['@foundry/*', ...NATIVE],
          // The script's own path, as tsup's shim gives the rest of the script (runCachedScript passes `__filename`).
          define: { 'import.meta.url': '__foundryModuleUrl' },
          banner: { js: 'var __foundryModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
          logLevel: 'error',
        })
        const name = onDemandName(args.path)
        // The directive first, or the package runs in sloppy mode.
        scripts.set(name, outputFiles[0]!.text.replace(/^(var __foundryModuleUrl[^\n]*\n)("use strict";)/, '$2$1'))
        const linked = [
          ...new Set(
            Object.values(metafile.outputs)
              .flatMap((output) => output.imports)
              .filter((found) => found.external && found.path.startsWith('@foundry/'))
              .map((found) => found.path),
          ),
        ]
        const links = linked.map((path) => `${JSON.stringify(path)}: () => require(${JSON.stringify(path)})`).join(', ')
        return { contents: `module.exports = __load(${JSON.stringify(name)}, { ${links} })`, loader: 'js', resolveDir: dirname(args.path) }
      })
    },
  }
}

/**
 * A script as `runCachedScript` runs it: the program in its function (the CommonJS parameters, then
 * `__import` and `__load`), and the last line, the build's hash (the cache's key), marked `utf8` where
 * the text is not ASCII.
 */
function builtScript(program: string, path: string): string {
  const text = `(function (exports, require, module, __filename, __dirname, __import, __load) {${dynamicImports(ascii(program), path)}\n})`
  const utf8 = /[^\x00-\x7f]/.test(text) ? ' utf8' : ''
  return `${text}\n//# build ${createHash('sha256').update(text).digest('hex').slice(0, 32)}${utf8}\n`
}

/**
 * A bin's program as one CommonJS script, `dist/bin/<name>.cjs`, for `runCachedScript`
 * (`@foundry/project/cached-script`), which compiles it through V8's code cache: no module to resolve
 * at start, and no parsing or compiling again of what a command ran before. What only some commands
 * need is still evaluated only when they import it, and what the script reaches only through `import()`
 * (`ON_DEMAND`) is bundled as closures. The last line is the build's hash, the cache's key.
 * The native better-sqlite3 stays external.
 */
export function cachedScript(entry: Record<string, string>, extra: Options = {}): Options {
  const { onSuccess, esbuildPlugins = [], ...rest } = extra
  const onDemand = new Map<string, string>()
  return {
    ...oneCommonJsFile(entry),
    minifyWhitespace: true,
    ...rest,
    esbuildPlugins: [onDemandScripts(ON_DEMAND, onDemand), kernelFromSource(), onFirstUse(onDemand), ...esbuildPlugins],
    onSuccess: async () => {
      for (const name of Object.keys(entry)) {
        const script = join('dist/bin', `${name}.cjs`)
        writeFileSync(script, builtScript(readFileSync(script, 'utf8'), script))
      }
      for (const [name, program] of onDemand) writeFileSync(join('dist/bin', name), builtScript(program, name))
      if (typeof onSuccess === 'function') await onSuccess()
    },
  }
}
