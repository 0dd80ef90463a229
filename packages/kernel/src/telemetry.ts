import type { FoundryEvent } from './schema/event.js'
import type { Storage } from './storage.js'

/** Records events. Never throws into the caller, never rejects: a full disk loses metrics, not work. */
export interface Telemetry {
  record(event: FoundryEvent): Promise<void>
}

/** Telemetry into the storage's event log; failures are swallowed and optionally reported. */
export function storageTelemetry(storage: Storage, onError?: (error: unknown) => void): Telemetry {
  return safeTelemetry({ record: (event) => storage.appendEvent(event) }, onError)
}

/** Wrap any telemetry so it can neither throw nor reject. */
export function safeTelemetry(inner: Telemetry, onError?: (error: unknown) => void): Telemetry {
  return {
    async record(event) {
      try {
        await inner.record(event)
      } catch (error) {
        try {
          onError?.(error)
        } catch {
          // a reporting failure is a telemetry failure too
        }
      }
    },
  }
}

export const noTelemetry: Telemetry = { record: async () => {} }
