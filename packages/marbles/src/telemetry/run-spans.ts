import { context, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api'
import type { Storage } from '@foundry/kernel'
import { isTerminal, parseRecord, type JournalRecord } from '../journal/records.js'

const RUN_LOG = /^marbles\/(run-[0-9a-z]{26})$/

/**
 * Spans from journal records: a run's span opens at its `running` record and ends at its next
 * `suspended` or terminal one (status ERROR when it failed), each step attempt is a child span from
 * its `start` to its `end` or `error` record. The records' own times are the spans' times. A run is
 * named from its `queued` record, or from the head of its journal when another process queued it.
 */
export function runSpans(tracer: Tracer, storage: Storage) {
  const names = new Map<string, string>()
  const open = new Map<string, { span: Span; steps: Map<string, Span> }>()

  const nameFromJournal = (runId: string, span: Span) =>
    void storage
      .readLog(`marbles/${runId}`, 0, { limit: 1 })
      .then((page) => {
        const head = page.entries[0] === undefined ? undefined : parseRecord(page.entries[0])
        if (head?.type === 'status' && head.name) {
          span.updateName(`marbles.run ${head.name}`)
          span.setAttribute('marbles.run.name', head.name)
        }
      })
      .catch(() => {})

  function onStatus(runId: string, record: Extract<JournalRecord, { type: 'status' }>) {
    if (record.status === 'queued' && record.name) names.set(runId, record.name)
    if (record.status === 'running' && !open.has(runId)) {
      const name = names.get(runId)
      const span = tracer.startSpan(name ? `marbles.run ${name}` : 'marbles.run', {
        startTime: record.at,
        attributes: { 'marbles.run.id': runId, ...(name && { 'marbles.run.name': name }) },
      })
      if (!name) nameFromJournal(runId, span)
      open.set(runId, { span, steps: new Map() })
      return
    }
    const run = open.get(runId)
    if (!run || !(record.status === 'suspended' || isTerminal(record.status))) return
    for (const step of run.steps.values()) step.end(record.at)
    run.span.setAttribute('marbles.run.status', record.status)
    if (record.status === 'failed')
      run.span.setStatus({ code: SpanStatusCode.ERROR, ...(record.error && { message: record.error.message }) })
    run.span.end(record.at)
    open.delete(runId)
    if (isTerminal(record.status)) names.delete(runId)
  }

  function onStep(runId: string, record: Extract<JournalRecord, { type: 'step' }>) {
    const run = open.get(runId)
    if (!run || record.replayed) return
    const key = `${record.step}#${record.attempt}`
    if (record.phase === 'start') {
      const parent = trace.setSpan(context.active(), run.span)
      run.steps.set(
        key,
        tracer.startSpan(
          `marbles.step ${record.step}`,
          {
            startTime: record.at,
            attributes: {
              'marbles.run.id': runId,
              'marbles.step.name': record.step,
              'marbles.step.attempt': record.attempt,
            },
          },
          parent,
        ),
      )
      return
    }
    const span = run.steps.get(key)
    if (!span) return
    if (record.phase === 'error')
      span.setStatus({ code: SpanStatusCode.ERROR, ...(record.error && { message: record.error.message }) })
    span.end(record.at)
    run.steps.delete(key)
  }

  return {
    /** The lines just appended to `log`; only run journals are read. */
    appended(log: string, lines: readonly string[]): void {
      const runId = RUN_LOG.exec(log)?.[1]
      if (!runId) return
      for (const line of lines) {
        const record = parseRecord(line)
        if (record?.type === 'status') onStatus(runId, record)
        else if (record?.type === 'step') onStep(runId, record)
      }
    },
    /** End the spans still open (the process is closing): a run that goes on elsewhere gets a new span there. */
    endAll(): void {
      for (const run of open.values()) {
        for (const step of run.steps.values()) step.end()
        run.span.end()
      }
      open.clear()
    },
  }
}
