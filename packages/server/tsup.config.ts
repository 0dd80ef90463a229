import { defineConfig } from 'tsup'
import { library } from '../../tsup.preset.js'

// Two entries: `./stdio` stays free of the kernel and the SDK's Server (a bin's fast path to `initialize`).
export default defineConfig([library({ index: 'src/index.ts', stdio: 'src/stdio.ts' })])
