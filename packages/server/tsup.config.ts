import { defineConfig } from 'tsup'
import { library } from '../../tsup.preset.js'

// Three entries: `./stdio` stays free of the kernel and the SDK's Server (a bin's fast path to
// `initialize`); `./runtime` holds only the private runtime folder's rule (foundry-hook's fast path).
export default defineConfig([library({ index: 'src/index.ts', stdio: 'src/stdio.ts', runtime: 'src/runtime.ts' })])
