import { validator, type JsonValue, type Kernel } from '@foundry/kernel'
import type { Static, TSchema } from 'typebox'
import { kindOf } from '../define/brand.js'
import type { RunContext, RunLogger, StepContext, StepOptions, WaitOptions } from '../define/context.js'
import { backoff, resolveRetry } from '../define/retry.js'
import type { StepDefinition } from '../define/workflow.js'
import type { RunState } from '../journal/fold.js'
import type { JournalWriter } from '../journal/writer.js'
import { sleep } from '../journal/follow.js'
import type { RunArtifacts, StoredValue } from './artifacts.js'
import { abortable, journalError, Suspend, timeoutReason, waitTimeout } from './errors.js'

export interface RunContextOptions {
  runId: string
  name: string
  signal: AbortSignal
  writer: JournalWriter
  kernel: Kernel
  artifacts: RunArtifacts
  /** This run's journal so far: its finished steps and timers are replayed. */
  state: RunState
  /** A linked run: the interrupted run's finished steps, replayed (and journaled here as `replayed`). */
  inherited?: { steps: RunState['steps']; signals?: RunState['signals']; artifacts: RunArtifacts }
  now?: () => number
}

/** The context a workflow's `run` gets for one execution (a first start, or a resume). */
export function createRunContext(options: RunContextOptions): RunContext {
  const { runId, name, signal, writer, kernel, artifacts, state } = options
  const now = options.now ?? Date.now
  const calls = new Map<string, number>()
  const timerCalls = new Map<string, number>()
  const waitCalls = new Map<string, number>()

  const logger = (step?: string): RunLogger => {
    const line = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string) => {
      if (writer.closed) return
      void writer.write({ type: 'log', level, message: String(message), ...(step && { step }) }).catch(() => {})
    }
    return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') }
  }

  /** The n-th call of a name is `name#n` (the first keeps the bare name). */
  const occurrence = (counts: Map<string, number>, base: string) => {
    const n = (counts.get(base) ?? 0) + 1
    counts.set(base, n)
    return n === 1 ? base : `${base}#${n}`
  }

  async function runStep(
    base: string,
    fn: (s: StepContext) => unknown,
    options: StepOptions & { timeoutMs?: number },
  ): Promise<unknown> {
    const id = occurrence(calls, base)
    const done = state.steps.get(id)
    if (done) return artifacts.get(done)
    const earlier = inheritedStep(id)
    if (earlier) {
      const value = await earlier.value
      await writer.write({ type: 'step', phase: 'end', step: id, attempt: 0, ...earlier.stored, replayed: true })
      return value
    }
    const policy = resolveRetry(options.retry)
    for (let attempt = 1; ; attempt++) {
      signal.throwIfAborted()
      void writer.write({ type: 'step', phase: 'start', step: id, attempt }).catch(() => {})
      const started = now()
      try {
        const work = Promise.resolve().then(() => fn({ attempt, signal, log: logger(id) }))
        const result = await abortable(
          options.timeoutMs ? withTimeout(work, options.timeoutMs, `step ${id}`) : work,
          signal,
        )
        const stored: StoredValue = await artifacts.keep(`step.${id}`, result)
        await writer.write({ type: 'step', phase: 'end', step: id, attempt, ms: now() - started, ...stored })
        return result
      } catch (error) {
        if (signal.aborted || error instanceof Suspend) throw error
        const last = attempt >= policy.attempts
        const wait = last ? undefined : backoff(policy, attempt)
        await writer.write({
          type: 'step',
          phase: 'error',
          step: id,
          attempt,
          ms: now() - started,
          error: journalError(error),
          ...(wait !== undefined && { retryInMs: wait }),
        })
        if (last) throw error
        await sleep(wait!, signal)
      }
    }
  }

  function inheritedStep(id: string): { stored: StoredValue; value: Promise<unknown> } | undefined {
    const stored = options.inherited?.steps.get(id)
    if (!stored) return undefined
    return { stored, value: options.inherited!.artifacts.get(stored) }
  }

  const ctx: RunContext = {
    runId,
    name,
    signal,
    log: logger(),
    kernel,
    step(
      nameOrDefinition: string | StepDefinition<never, unknown>,
      fnOrInput?: unknown,
      stepOptions?: StepOptions,
    ): Promise<never> {
      if (kindOf(nameOrDefinition) === 'step') {
        const def = nameOrDefinition as StepDefinition<unknown, unknown>
        const input = def.input ? validator(def.input).parse(fnOrInput, `input of step ${def.name}`) : fnOrInput
        return runStep(def.name, (s) => def.run({ ...s, kernel, runId }, input), {
          retry: def.retry,
          ...(def.timeoutMs && { timeoutMs: def.timeoutMs }),
        }) as Promise<never>
      }
      if (typeof nameOrDefinition !== 'string' || typeof fnOrInput !== 'function')
        throw new TypeError('ctx.step(name, fn, options?) or ctx.step(stepDefinition, input)')
      return runStep(nameOrDefinition, fnOrInput as (s: StepContext) => unknown, stepOptions ?? {}) as Promise<never>
    },
    async sleep(timer: string, ms: number) {
      const id = occurrence(timerCalls, timer)
      let until = state.timers.get(id)
      if (until === undefined) {
        until = now() + Math.max(0, ms)
        state.timers.set(id, until)
        await writer.write({ type: 'timer', name: id, until })
      }
      signal.throwIfAborted()
      if (now() < until) throw new Suspend(until)
    },
    async waitFor<S extends TSchema>(signalName: string, waitOptions: WaitOptions<S> = {}): Promise<Static<S>> {
      const id = occurrence(waitCalls, signalName)
      let came = state.signals.get(id)
      const earlier = came ? undefined : options.inherited?.signals?.get(id)
      if (earlier) {
        await writer.write({ type: 'signal', name: id, ...earlier, replayed: true })
        state.signals.set(id, (came = earlier))
      }
      if (came?.timedOut) throw waitTimeout(id, waitOptions.timeoutMs ?? 0)
      if (came) return came.data as Static<S> // checked against the schema when it was sent
      let wait = state.waits.get(id)
      if (!wait) {
        const until = waitOptions.timeoutMs !== undefined ? now() + Math.max(0, waitOptions.timeoutMs) : undefined
        wait = {
          signal: signalName,
          ...(until !== undefined && { until }),
          ...(waitOptions.schema && { schema: waitOptions.schema as unknown as JsonValue }),
        }
        state.waits.set(id, wait)
        await writer.write({ type: 'wait', name: id, ...wait })
      }
      signal.throwIfAborted()
      throw new Suspend(wait.until, { signal: signalName, id, ...(wait.until !== undefined && { until: wait.until }) })
    },
    async artifact(artifactName: string, data: unknown) {
      const { path } = await artifacts.put(artifactName, data)
      ctx.log.info(`artifact ${artifactName}: ${path}`)
      return path
    },
  }
  return ctx
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(timeoutReason(what, ms)), ms)
    work.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e) => (clearTimeout(timer), reject(e)),
    )
  })
}
