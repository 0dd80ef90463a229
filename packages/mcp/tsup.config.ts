import { defineConfig } from 'tsup'
import { library } from '../../tsup.preset.js'

// `@foundry/mcp`: the server, its table and resources; `./stdio` is serveStdio alone, which answers
// `initialize` before the kernel and the SDK's Server load (server.js is imported after). The
// `foundry` bin is @foundry/cli's.
export default defineConfig([library({ index: 'src/index.ts', stdio: 'src/stdio.ts' })])
