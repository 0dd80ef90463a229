import { defineConfig } from 'tsup'
import { bundledBin, library } from '../../tsup.preset.js'

export default defineConfig([
  // `@foundry/marbles` (top-level files only: dist/bin belongs to the bin build).
  library({ index: 'src/index.ts' }, { clean: ['*'] }),
  // The `marbles` bin: one bundle; jiti stays external (it loads workspace modules, and resolves their imports itself).
  bundledBin({ marbles: 'src/bin.ts' }, { noExternal: [/^(?!(better-sqlite3|jiti)$)/] }),
])
