import type { Storage } from '@foundry/kernel'
import { sleep } from '../journal/follow.js'
import { CONTROL_LOG } from './run-record.js'

export interface ControlRequest {
  type: 'dispatch' | 'cancel'
  runId: string
}

/** Ask the state's owner to execute or cancel a run (any process may append; only the owner reads). */
export async function sendControl(storage: Storage, request: ControlRequest): Promise<void> {
  await storage.appendLog(CONTROL_LOG, [JSON.stringify(request)])
}

/** The owner's loop: requests appended after it started, polled with back-off (5 ms to 200 ms), until `signal` aborts. */
export async function followControl(storage: Storage, signal: AbortSignal, handle: (request: ControlRequest) => void): Promise<void> {
  let cursor = await storage.logEnd(CONTROL_LOG)
  let interval = 5
  while (!signal.aborted) {
    try {
      if ((await storage.logEnd(CONTROL_LOG)) > cursor) {
        const page = await storage.readLog(CONTROL_LOG, cursor)
        cursor = page.cursor
        for (const entry of page.entries) {
          try {
            const request = JSON.parse(entry) as ControlRequest
            if ((request.type === 'dispatch' || request.type === 'cancel') && typeof request.runId === 'string') handle(request)
          } catch {
            // a torn or foreign line: skipped
          }
        }
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
