import { defineConfig } from 'tsup'
import { library } from '../../tsup.preset.js'

// `@foundry/project/find` is finding a project alone (Node built-ins only): the hook bin's fast path
// imports it without loading the kernel. The adapters stay external, imported by registry.ts only
// when a config names them (a project on the folder layout never loads SQLite). `@foundry/project/cached-script`
// is how a bin runs its program through V8's code cache (Node built-ins only).
export default defineConfig(library({ index: 'src/index.ts', find: 'src/find-api.ts', 'cached-script': 'src/cached-script.ts' }))
