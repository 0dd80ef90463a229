import { Worker } from 'node:worker_threads'
import type { Kernel } from '@foundry/kernel'
import type { RunState } from '../../journal/fold.js'
import type { JournalEntry } from '../../journal/records.js'
import type { JournalWriter } from '../../journal/writer.js'
import type { RunArtifacts } from '../artifacts.js'
import { journalError } from '../errors.js'
import { fromWire, toWire, type BodyWorkerData, type FromWorker, type Outcome, type ToWorker } from './protocol.js'

/** Run workflow bodies in worker threads, so that one that ignores its signal can be stopped. */
export interface IsolateOptions {
  /** The worker's entry: `body-worker.js`, built beside the `marbles` bin. */
  worker: string
  /** The workspace the worker loads (as this process loaded it). */
  workspace: { root: string; source: string }
  /** Whether the runnable `name` runs in a worker (those of the workspace); the others run in this process. */
  runs(name: string): boolean
}

export interface IsolatedBodyOptions {
  runId: string
  name: string
  state: RunState
  inherited?: { steps: RunState['steps']; signals?: RunState['signals']; artifacts: RunArtifacts }
  /** Told to the worker when it aborts. */
  signal: AbortSignal
  writer: JournalWriter
  kernel: Kernel
  artifacts: RunArtifacts
}

/** A body running in a worker: how it ended, and `stop()` to terminate the worker (at once, whatever it runs). */
export interface IsolatedBody {
  outcome: Promise<Outcome>
  stop(): Promise<void>
}

/** Start a run's body in a worker thread; its journal, artifacts and kernel calls are served here. */
export function runIsolated(isolate: IsolateOptions, options: IsolatedBodyOptions): IsolatedBody {
  const { signal, writer, kernel } = options
  const data: BodyWorkerData = {
    workspace: isolate.workspace,
    runId: options.runId,
    name: options.name,
    state: options.state,
    ...(options.inherited && {
      inherited: options.inherited.steps,
      ...(options.inherited.signals && { inheritedSignals: options.inherited.signals }),
    }),
  }
  // The body's own stdout must never reach this process's stdout (an MCP server's protocol stream).
  const worker = new Worker(isolate.worker, { workerData: data, stdout: true, stderr: true })
  worker.stdout.pipe(process.stderr)
  worker.stderr.pipe(process.stderr)
  const send = (message: ToWorker) => worker.postMessage(message)
  const onAbort = () => {
    const reason = toWire(signal.reason)
    send({
      type: 'abort',
      name: 'name' in reason ? reason.name : 'AbortError',
      message: 'message' in reason ? reason.message : 'aborted',
    })
  }
  if (signal.aborted) onAbort()
  else signal.addEventListener('abort', onAbort, { once: true })

  let settle!: (outcome: Outcome) => void
  const outcome = new Promise<Outcome>((resolve) => (settle = resolve))
  worker.on('message', (message: FromWorker) => {
    if (message.type === 'outcome')
      return settle(
        message.ok
          ? { ok: true, value: message.value, early: message.early }
          : { ok: false, error: fromWire(message.error) },
      )
    serve(message)
      .then((value) => send({ type: 'reply', id: message.id, ok: true, value }))
      .catch((error: unknown) => send({ type: 'reply', id: message.id, ok: false, error: toWire(error) }))
  })
  worker.on('error', (error) => settle({ ok: false, error }))
  worker.on('exit', (code) =>
    settle({
      ok: false,
      error: signal.aborted
        ? signal.reason
        : new Error(`the workflow's worker exited (code ${code}) before its body settled`),
    }),
  )
  void outcome.then(() => signal.removeEventListener('abort', onAbort))

  async function serve(message: Extract<FromWorker, { type: 'call' }>): Promise<unknown> {
    switch (message.kind) {
      case 'write':
        return writer.write(message.entry as JournalEntry)
      case 'flush':
        return writer.flush()
      case 'artifacts': {
        const artifacts = message.inherited ? options.inherited?.artifacts : options.artifacts
        if (!artifacts) throw new Error('this run inherits no artifacts')
        return (artifacts[message.method] as (...args: unknown[]) => Promise<unknown>)(...message.args)
      }
      case 'kernel':
        return callKernel(kernel, message.path, message.args)
    }
  }

  return {
    outcome,
    async stop() {
      await worker.terminate()
    },
  }
}

/** `ctx.kernel.<path>(...args)` as a body in a worker called it. */
function callKernel(kernel: Kernel, path: string[], args: unknown[]): Promise<unknown> {
  let target: unknown = kernel
  let self: unknown
  for (const key of path) {
    if (
      typeof target !== 'object' ||
      target === null ||
      !(key in target) ||
      key === 'constructor' ||
      key === '__proto__'
    )
      throw new TypeError(`ctx.kernel.${path.join('.')} is not a kernel method`)
    self = target
    target = (target as Record<string, unknown>)[key]
  }
  if (typeof target !== 'function') throw new TypeError(`ctx.kernel.${path.join('.')} is not a kernel method`)
  return Promise.resolve((target as (...a: unknown[]) => unknown).apply(self, args))
}

/** A body that ignored its signal for `graceMs`: its worker is stopped (or, run in this process, it is left running); journaled. */
export async function abandonBody(
  writer: JournalWriter,
  signal: AbortSignal,
  graceMs: number,
  isolated: IsolatedBody | undefined,
): Promise<Outcome> {
  if (isolated) await isolated.stop()
  const why = journalError(signal.reason).name === 'TimeoutError' ? 'its timeout' : 'its cancellation'
  const message = isolated
    ? `the body ignored ${why} for ${graceMs} ms: its worker was stopped`
    : `the body ignored ${why} for ${graceMs} ms and cannot be stopped in this process: it is abandoned, still running`
  await writer.write({ type: 'log', level: 'warn', message }).catch(() => {})
  return { ok: false, error: signal.reason, abandoned: isolated ? 'stopped' : 'left running' }
}
