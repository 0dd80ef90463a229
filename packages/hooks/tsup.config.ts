import { defineConfig } from 'tsup'
import { bundledBin, library } from '../../tsup.preset.js'

export default defineConfig([
  // `@foundry/hooks`, and `@foundry/hooks/validate-assets` alone (the CLI's command needs nothing else).
  library({ index: 'src/index.ts', 'validate-assets': 'src/validate-assets.ts' }, { clean: ['*.js', '*.d.ts'] }),
  // A hook starts on every prompt: the entry holds only what asking a hook server takes; the kernel
  // and adapters are chunks loaded when a hook runs in process.
  bundledBin({ 'foundry-hook': 'src/bin.ts', 'foundry-validate-assets': 'src/validate-assets-bin.ts' }),
])
