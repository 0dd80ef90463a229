import type { JournalRecord, WaitFor } from '../journal/records.js'

const time = (at: number) => new Date(at).toISOString().slice(11, 23)

/** What a run suspended by `ctx.waitFor` waits for, as a human phrase. */
export const waitingLine = (waitFor: WaitFor) =>
  `waiting for signal ${waitFor.signal}${waitFor.until !== undefined ? ` until ${new Date(waitFor.until).toISOString()}` : ''}`

/** One journal record as a human line. */
export function renderRecord(record: JournalRecord): string {
  const head = `${time(record.at)} #${record.seq}`
  switch (record.type) {
    case 'status': {
      const extra = [
        record.status === 'queued' && record.name ? `${record.name} ${JSON.stringify(record.input ?? {})}` : '',
        record.reason ?? '',
        record.error ? `${record.error.name}: ${record.error.message}` : '',
        record.waitFor ? `waiting for signal ${record.waitFor.signal}` : '',
        record.rerunOf ? `re-runs ${record.rerunOf}` : '',
        record.wakeAt !== undefined ? `until ${new Date(record.wakeAt).toISOString()}` : '',
        record.resumedBy ? `resumed by ${record.resumedBy}` : '',
      ].filter(Boolean)
      return `${head} ${record.status}${extra.length ? ` · ${extra.join(' · ')}` : ''}`
    }
    case 'log':
      return `${head} ${record.level}${record.step ? ` [${record.step}]` : ''} ${record.message}`
    case 'step': {
      const what =
        record.phase === 'start'
          ? `attempt ${record.attempt}`
          : record.phase === 'end'
            ? `${record.replayed ? 'replayed' : `done in ${record.ms ?? 0} ms`}${record.artifact ? ` → ${record.artifact}` : ''}`
            : `attempt ${record.attempt} failed: ${record.error?.name}: ${record.error?.message}${record.retryInMs !== undefined ? ` (retry in ${record.retryInMs} ms)` : ''}`
      return `${head} step ${record.step} ${record.phase === 'start' ? 'started' : record.phase === 'end' ? 'ended' : 'error'}: ${what}`
    }
    case 'timer':
      return `${head} timer ${record.name} until ${new Date(record.until).toISOString()}`
    case 'wait':
      return `${head} wait ${record.name} for signal ${record.signal}${record.until !== undefined ? ` until ${new Date(record.until).toISOString()}` : ''}`
    case 'signal':
      return `${head} signal ${record.name} ${record.timedOut ? 'timed out' : `received ${JSON.stringify(record.data ?? null)}`}`
    case 'result':
      return `${head} result ${record.artifact ? `in ${record.artifact}` : JSON.stringify(record.output ?? null)}`
  }
}
