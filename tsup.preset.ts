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
