import { resolve } from 'node:path'
import { defineConfig } from 'tsup'

export default defineConfig([
  // The library: `@foundry/mcp` and `@foundry/mcp/config`, dependencies left to the consumer's resolver.
  {
    entry: { index: 'src/index.ts', config: 'src/config.ts' },
    format: ['esm'],
    dts: true,
    clean: ['*'], // top-level files only: dist/bin belongs to the build below
    target: 'node20',
    platform: 'node',
  },
  // The `foundry` bin: one bundle, so `foundry mcp` resolves no modules at start-up. The native
  // better-sqlite3 stays external; the kernel, the tools and the adapters are chunks loaded on first
  // use, after the client's `initialize` is answered.
  {
    entry: { foundry: 'src/bin.ts' },
    outDir: 'dist/bin',
    format: ['esm'],
    dts: false,
    clean: true,
    splitting: true,
    target: 'node20',
    platform: 'node',
    noExternal: [/^(?!better-sqlite3$)/],
    // Bundled CommonJS (commander, proper-lockfile) calls `require` for Node built-ins.
    banner: { js: "import { createRequire as __foundryRequire } from 'node:module'; const require = __foundryRequire(import.meta.url);" },
    esbuildPlugins: [
      {
        name: 'sdk-without-ajv',
        setup(build) {
          build.onResolve({ filter: /\/validation\/ajv-provider\.js$/ }, (args) =>
            args.importer.includes('@modelcontextprotocol') ? { path: resolve('src/no-ajv.ts') } : undefined,
          )
        },
      },
    ],
  },
])
