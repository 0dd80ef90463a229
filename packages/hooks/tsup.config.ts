import { defineConfig } from 'tsup'
import { bundledBin, cachedScript, commonJsBin, library } from '../../tsup.preset.js'

export default defineConfig([
  // `@foundry/hooks`, and `@foundry/hooks/validate-assets` alone (the CLI's command needs nothing else).
  library({ index: 'src/index.ts', 'validate-assets': 'src/validate-assets-api.ts' }, { clean: ['*.js', '*.d.ts'] }),
  // `foundry-hook.js` is the hook bin's former path, kept for settings that name it: it runs `foundry-hook.cjs`.
  bundledBin({ 'foundry-hook': 'src/bin-path.ts', 'foundry-validate-assets': 'src/validate-assets-bin.ts' }),
  // A hook starts on every prompt: the entry is CommonJS (no ES module loader) and holds only what asking a
  // hook server takes; what a hook runs in process (the kernel, the adapters) is one script run through
  // V8's code cache.
  commonJsBin({ 'foundry-hook': 'src/bin.ts' }),
  cachedScript({ 'foundry-hook-run': 'src/run.ts' }),
])
