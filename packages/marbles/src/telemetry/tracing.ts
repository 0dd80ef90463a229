import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import type { Storage } from '@foundry/kernel'
import pkg from '../../package.json' with { type: 'json' }
import { runSpans } from './run-spans.js'

/** A state's storage with its runs traced, and the flush of what is left at close. */
export interface RunTracing {
  storage: Storage
  /** End the spans still open, send what is buffered, stop the exporter. */
  close(): Promise<void>
}

/**
 * Trace every run and step journaled through `storage` (`runSpans`), exported over OTLP/HTTP
 * (JSON) to `url` in batches, service name `marbles`. Loaded only when tracing is configured: the
 * OpenTelemetry SDK is never on the default load path. Telemetry wraps the storage's `appendLog`;
 * the engine knows nothing of it.
 */
export function traceRuns(storage: Storage, url: string): RunTracing {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'marbles', 'service.version': pkg.version }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url }) })],
  })
  const spans = runSpans(provider.getTracer('@foundry/marbles', pkg.version), storage)
  const appendLog: Storage['appendLog'] = async (log, entries, options) => {
    const end = await storage.appendLog(log, entries, options)
    spans.appended(log, entries)
    return end
  }
  const traced = new Proxy(storage, {
    get: (target, key, receiver) => (key === 'appendLog' ? appendLog : Reflect.get(target, key, receiver)),
  })
  return {
    storage: traced,
    async close() {
      spans.endAll()
      await provider.shutdown().catch(() => {})
    },
  }
}
