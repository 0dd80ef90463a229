import type { Storage } from '@foundry/kernel'
import { sleep } from '../journal/follow.js'
import { CONTROL_LOG } from './run-record.js'

export interface ControlRequest {
  type: 'dispatch' | 'cancel'
  runId: string
}

/** A request line, or undefined for a torn or foreign one. */
function parseRequest(entry: string): ControlRequest | undefined {
  try {
    const request = JSON.parse(entry) as ControlRequest
    return (request.type === 'dispatch' || request.type === 'cancel') && typeof request.runId === 'string'
      ? request
      : undefined
  } catch {
    return undefined
  }
}

function dispatchTo(
  handle: (request: ControlRequest) => void | Promise<void>,
  failed: (request: ControlRequest, error: unknown) => void,
  request: ControlRequest,
): void {
  try {
    void handle(request)?.catch((error: unknown) => failed(request, error))
  } catch (error) {
    failed(request, error)
  }
}

/** Ask the state's owner to execute or cancel a run (any process may append; only the owner reads). */
export async function sendControl(storage: Storage, request: ControlRequest): Promise<void> {
  await storage.appendLog(CONTROL_LOG, [JSON.stringify(request)])
}

/**
 * The owner's loop: requests appended after it started, polled with back-off (5 ms to 200 ms), until
 * `signal` aborts. A torn or foreign line is skipped; a request `handle` fails (it throws, or its
 * promise rejects) goes to `failed`, never swallowed.
 */
export async function followControl(
  storage: Storage,
  signal: AbortSignal,
  handle: (request: ControlRequest) => void | Promise<void>,
  failed: (request: ControlRequest, error: unknown) => void,
): Promise<void> {
  let cursor = await storage.logEnd(CONTROL_LOG)
  let interval = 5
  while (!signal.aborted) {
    try {
      if ((await storage.logEnd(CONTROL_LOG)) > cursor) {
        const page = await storage.readLog(CONTROL_LOG, cursor)
        cursor = page.cursor
        for (const request of page.entries.map(parseRequest)) if (request) dispatchTo(handle, failed, request)
        interval = 5
        continue
      }
    } catch {
      // the store is busy or closing: try again later
    }
    await sleep(interval, signal, true)
    interval = Math.min(200, interval * 1.5)
  }
}
