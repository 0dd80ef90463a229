import { defineConfig } from 'tsup'
import { bundledBin, cachedScript, library } from '../../tsup.preset.js'

export default defineConfig([
  // `@foundry/marbles` (the authoring API: what a workspace module loads) and `@foundry/marbles/engine`
  // (for embedders). dist/bin belongs to the bin build.
  library({ index: 'src/index.ts', 'engine/index': 'src/engine/index.ts' }, { clean: ['*', 'engine/**'] }),
  // The `marbles` bin (and the worker thread a workflow's body runs in): a small entry; `marbles mcp` imports the program as ES module chunks, every other
  // command runs it as one script compiled through V8's code cache. jiti stays external (it loads
  // workspace modules, and resolves their imports itself), and so does the OpenTelemetry SDK: an optional
  // peer the user installs to turn tracing on (its exporter's dynamic imports cannot run in the cached script).
  bundledBin({ marbles: 'src/bin.ts', 'body-worker': 'src/engine/isolate/body-worker.ts' }, { noExternal: [/^(?!(better-sqlite3|jiti|@opentelemetry\/(sdk-trace|resources|exporter-trace-otlp-http))$)/] }),
  cachedScript({ 'marbles-cli': 'src/cli/program.ts' }, { noExternal: [/^(?!(better-sqlite3|jiti|@opentelemetry\/(sdk-trace|resources|exporter-trace-otlp-http))$)/] }),
])
