import { FoundryError } from '@foundry/kernel'

/** `tracing` of config.json: `{ "otlpEndpoint": "http://localhost:4318" }`, where runs' spans go (OTLP over HTTP). */
export interface TracingConfig {
  /** The collector's base URL, as `OTEL_EXPORTER_OTLP_ENDPOINT` names one: spans go to `<otlpEndpoint>/v1/traces`. */
  otlpEndpoint?: string
}

/** Read config.json's `tracing` key; a wrong shape throws INVALID_INPUT naming the file and the key. */
export function tracingOf(value: unknown, file: string): TracingConfig {
  if (value === undefined) return {}
  const endpoint = (value as { otlpEndpoint?: unknown } | null)?.otlpEndpoint
  const keys = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value) : undefined
  if (!keys || keys.some((key) => key !== 'otlpEndpoint') || (endpoint !== undefined && !isHttpUrl(endpoint)))
    throw new FoundryError(
      'INVALID_INPUT',
      `Invalid ${file}: tracing must be { "otlpEndpoint": "<http(s) URL of an OTLP collector>" } (or absent: no tracing)`,
    )
  return endpoint === undefined ? {} : { otlpEndpoint: endpoint as string }
}

/**
 * Where spans go, or undefined when tracing is off (the default): config.json's
 * `tracing.otlpEndpoint`, else the standard `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the traces URL
 * itself), else `OTEL_EXPORTER_OTLP_ENDPOINT` (a base URL, as the endpoint in config.json).
 */
export function tracesUrl(tracing: TracingConfig = {}, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const base = (url: string) => `${url.replace(/\/+$/, '')}/v1/traces`
  if (tracing.otlpEndpoint) return base(tracing.otlpEndpoint)
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) return base(env.OTEL_EXPORTER_OTLP_ENDPOINT)
  return undefined
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol)
  } catch {
    return false
  }
}
