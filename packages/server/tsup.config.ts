import { defineConfig } from 'tsup'
import { library } from '../../tsup.preset.js'

// `./stdio` stays free of the kernel and the SDK's Server (a bin's fast path to `initialize`);
// `./calls` free of the SDK (a stdio bin's first calls, answered before the Server loads); `./testing`
// is for the servers' tests (fast-check is the caller's); `./runtime` holds only the private runtime
// folder's rule (foundry-hook's fast path).
export default defineConfig([library({ index: 'src/index.ts', stdio: 'src/stdio.ts', calls: 'src/calls.ts', testing: 'src/testing.ts', runtime: 'src/runtime.ts' })])
