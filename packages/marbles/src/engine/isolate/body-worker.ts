// A workflow's body in its own worker thread (`isolate.ts` starts it): the workspace loaded again,
// the run's context built here, and every journal, artifact and kernel call made in the engine's
// process. Terminating the worker stops the body, whatever it does.
import { parentPort, workerData } from 'node:worker_threads'
import type { Kernel } from '@foundry/kernel'
import { KIND } from '../../define/brand.js'
import type { JournalWriter } from '../../journal/writer.js'
import { loadWorkspace } from '../../workspace/load.js'
import type { RunArtifacts } from '../artifacts.js'
import { createRunContext } from '../run-context.js'
import { fromWire, toWire, type BodyWorkerData, type FromWorker, type ToWorker } from './protocol.js'

type Call = FromWorker extends infer M ? (M extends { type: 'call' } ? Omit<M, 'type' | 'id'> : never) : never

const port = parentPort!
const data = workerData as BodyWorkerData
const controller = new AbortController()
const pending = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>()
let ids = 0

const post = (message: FromWorker) => port.postMessage(message)
const call = (message: Call): Promise<never> =>
  new Promise((resolve, reject) => {
    const id = ++ids
    pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
    post({ type: 'call', id, ...message } as FromWorker)
  })

port.on('message', (message: ToWorker) => {
  if (message.type === 'abort') return controller.abort(new DOMException(message.message, message.name))
  const waiting = pending.get(message.id)
  pending.delete(message.id)
  if (message.ok) waiting?.resolve(message.value)
  else waiting?.reject(fromWire(message.error))
})

/** `ctx.kernel`: every method call made in the engine's process (arguments and results copied). */
function kernelAt(path: string[]): unknown {
  return new Proxy(function kernel() {}, {
    get: (_target, key) => (typeof key === 'symbol' || key === 'then' ? undefined : kernelAt([...path, key])),
    apply: (_target, _self, args: unknown[]) => call({ kind: 'kernel', path, args }),
  })
}

const artifactsOf = (inherited: boolean) =>
  ({
    put: (...args: unknown[]) => call({ kind: 'artifacts', inherited, method: 'put', args }),
    get: (...args: unknown[]) => call({ kind: 'artifacts', inherited, method: 'get', args }),
    keep: (...args: unknown[]) => call({ kind: 'artifacts', inherited, method: 'keep', args }),
  }) as unknown as RunArtifacts

let closed = false
const writer: JournalWriter = {
  write: (entry) => (closed ? Promise.reject(new Error('the run has settled')) : call({ kind: 'write', entry })),
  settle: () => Promise.reject(new Error('a body journals no status')),
  flush: () => call({ kind: 'flush' }),
  close: () => void (closed = true),
  get closed() {
    return closed
  },
}

/** A value as JSON: what the engine keeps of an output. */
const asJson = (value: unknown) => {
  const json = JSON.stringify(value)
  return json === undefined ? undefined : JSON.parse(json)
}

async function main(): Promise<void> {
  const { definitions } = await loadWorkspace(data.workspace)
  const def = definitions.runnables.get(data.name)
  if (!def)
    throw Object.assign(new Error(`no workflow or step named "${data.name}" in this workspace`), { name: 'NotFound' })
  const { runId, name, state } = data
  const ctx = createRunContext({
    runId,
    name,
    signal: controller.signal,
    writer,
    kernel: kernelAt([]) as Kernel,
    artifacts: artifactsOf(false),
    state,
    ...(data.inherited && {
      inherited: {
        steps: data.inherited,
        ...(data.inheritedSignals && { signals: data.inheritedSignals }),
        artifacts: artifactsOf(true),
      },
    }),
  })
  controller.signal.throwIfAborted() // aborted while the workspace loaded: the body never starts
  const value = await (def[KIND] === 'step' ? ctx.step(def, state.input) : def.run(ctx, state.input))
  post({ type: 'outcome', ok: true, value: asJson(value), early: !controller.signal.aborted })
}

main().catch((error: unknown) => post({ type: 'outcome', ok: false, error: toWire(error) }))
