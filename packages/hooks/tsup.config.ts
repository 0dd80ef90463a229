import { defineConfig } from 'tsup'

export default defineConfig([
  // The library: `@foundry/hooks`, and `@foundry/hooks/validate-assets` alone (the CLI's command needs
  // nothing else); dependencies left to the consumer's resolver.
  {
    entry: { index: 'src/index.ts', 'validate-assets': 'src/validate-assets.ts' },
    format: ['esm'],
    dts: true,
    clean: ['*.js', '*.d.ts'], // top-level files only: dist/bin belongs to the build below
    target: 'node20',
    platform: 'node',
  },
  // The bins: bundled, since a hook starts on every prompt and pays for every module it resolves.
  // The entry holds only what asking a hook server takes; the kernel and adapters are chunks loaded
  // when a hook runs in process. Only the native better-sqlite3 stays external (loaded only when the
  // project's configuration names SQLite).
  {
    entry: { 'foundry-hook': 'src/bin.ts', 'foundry-validate-assets': 'src/validate-assets-bin.ts' },
    outDir: 'dist/bin',
    format: ['esm'],
    dts: false,
    clean: true,
    splitting: true,
    target: 'node20',
    platform: 'node',
    noExternal: [/^(?!better-sqlite3$)/],
    // Bundled CommonJS (proper-lockfile, …) calls `require` for Node built-ins.
    banner: { js: "#!/usr/bin/env node\nimport { createRequire as __foundryRequire } from 'node:module'; const require = __foundryRequire(import.meta.url);" },
  },
])
