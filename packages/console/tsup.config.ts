import { defineConfig } from 'tsup'
import { bundledBin, library } from '../../tsup.preset.js'

export default defineConfig([
  library({ index: 'src/index.ts' }, { clean: ['*.js', '*.d.ts'] }),
  bundledBin({ 'foundry-console': 'src/bin.ts' }),
  // The front end: one browser bundle (Preact and htm inside), beside its page and styles in dist/ui.
  {
    entry: { app: 'ui/main.ts' },
    outDir: 'dist/ui',
    format: ['esm'],
    platform: 'browser',
    target: 'es2022',
    minify: true,
    dts: false,
    clean: true,
    noExternal: [/.*/],
    outExtension: () => ({ js: '.js' }),
    publicDir: 'ui/public',
  },
])
