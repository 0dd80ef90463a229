import { ERROR_CODES, FoundryError, type FoundryErrorCode } from '@foundry/kernel'
import type { RunState } from '../../journal/fold.js'
import type { WaitFor } from '../../journal/records.js'
import { Suspend } from '../errors.js'

/** How a body ended; `early`: it returned before its signal aborted. `abandoned`: it ignored its signal past the grace period. */
export type Outcome =
  | { ok: true; value: unknown; early: boolean }
  | { ok: false; error: unknown; abandoned?: 'stopped' | 'left running' }

/** What a body worker is started with. */
export interface BodyWorkerData {
  /** What the worker loads, as the engine's process loaded it. */
  workspace: { root: string; source: string }
  runId: string
  name: string
  state: RunState
  /** A linked run's inherited steps (the interrupted run's), replayed. */
  inherited?: RunState['steps']
  /** And the waits that ended there, replayed. */
  inheritedSignals?: RunState['signals']
}

/** An error as it crosses between threads: its name, message and FoundryError code, or a timer's suspension. */
export type WireError = { name: string; message: string; code?: string } | { suspend: number | null; waitFor?: WaitFor }

/** Worker → engine: a call into the engine's process (the journal, the artifacts, the kernel), or the body's end. */
export type FromWorker =
  | { type: 'call'; id: number; kind: 'write'; entry: unknown }
  | { type: 'call'; id: number; kind: 'flush' }
  | { type: 'call'; id: number; kind: 'artifacts'; inherited: boolean; method: 'put' | 'get' | 'keep'; args: unknown[] }
  | { type: 'call'; id: number; kind: 'kernel'; path: string[]; args: unknown[] }
  | { type: 'outcome'; ok: true; value: unknown; early: boolean }
  | { type: 'outcome'; ok: false; error: WireError }

/** Engine → worker: a call's answer, or the run's signal aborting. */
export type ToWorker =
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; error: WireError }
  | { type: 'abort'; name: string; message: string }

export function toWire(error: unknown): WireError {
  if (error instanceof Suspend)
    return { suspend: error.until ?? null, ...(error.waitFor && { waitFor: error.waitFor }) }
  if (error instanceof Error || error instanceof DOMException) {
    const code = (error as { code?: unknown }).code
    return { name: error.name || 'Error', message: error.message, ...(typeof code === 'string' && { code }) }
  }
  return { name: 'Error', message: String(error) }
}

export function fromWire(wire: WireError): unknown {
  if ('suspend' in wire) return new Suspend(wire.suspend ?? undefined, wire.waitFor)
  if (wire.name === 'FoundryError' && (ERROR_CODES as readonly string[]).includes(wire.code ?? ''))
    return new FoundryError(wire.code as FoundryErrorCode, wire.message)
  if (wire.name === 'AbortError' || wire.name === 'TimeoutError') return new DOMException(wire.message, wire.name)
  const error = new Error(wire.message)
  error.name = wire.name
  return error
}
