// Runs: Marbles runs with their status; a run's steps and journal, live as they are written; and,
// when the console runs workflows, dispatch, cancel and re-run.
import { html } from 'htm/preact'
import { useEffect, useState } from 'preact/hooks'
import { follow } from '../api.js'
import { Badge, ErrorLine, Loading, when } from '../parts.js'
import type { RunSummary as Run, SessionAnswer } from '../../src/wire.js'
import { href, useApi, useLive, useTokenVersion } from '../state.js'
import { RunButtons } from './run-buttons.js'

type JournalRecord = { seq?: number; at?: number; type?: string; [key: string]: unknown }

export function RunsPage() {
  const live = useLive('runs')
  const runs = useApi<Run[]>('runs', [live])
  const session = useApi<SessionAnswer>('session')
  return html`
    <h1>Runs</h1>
    ${session.data?.runActions ? html`<p><a class="button" href="#/dispatch">Dispatch a workflow</a></p>` : null}
    <${Loading} when=${runs.loading && !runs.data} /><${ErrorLine} error=${runs.error} />
    ${runs.data?.length === 0 ? html`<p class="muted">No Marbles runs in this project yet.</p>` : null}
    ${runs.data?.length
      ? html`<table><thead><tr><th scope="col">run</th><th scope="col">workflow or agent</th><th scope="col">status</th><th scope="col">updated</th></tr></thead>
        <tbody>${runs.data.map(
          (r) => html`<tr key=${r.id}><td><a class="mono" href=${href('run', r.id)}>${r.id}</a></td><td>${r.name}</td><td><${Badge} value=${r.status} />${r.reason ? ` ${r.reason}` : ''}</td><td>${when(r.updatedAt)}</td></tr>`,
        )}</tbody></table>`
      : null}
  `
}

/** One line of a journal record, in words. */
function describe(r: JournalRecord): string {
  const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v))
  switch (r.type) {
    case 'status':
      return `status → ${text(r.status)}${r.name ? ` (${text(r.name)})` : ''}${r.reason ? `: ${text(r.reason)}` : ''}`
    case 'log':
      return `${text(r.level)}${r.step ? ` [${text(r.step)}]` : ''}: ${text(r.message)}`
    case 'step':
      return `step ${text(r.step)} ${text(r.phase)} (attempt ${text(r.attempt)})${r.ms !== undefined ? ` in ${text(r.ms)} ms` : ''}${r.error ? `: ${text((r.error as { message?: unknown }).message)}` : ''}`
    case 'timer':
      return `timer ${text(r.name)} until ${when(Number(r.until))}`
    case 'result':
      return `result ${r.artifact ? text(r.artifact) : text(r.output).slice(0, 300)}`
    default:
      return typeof r === 'string' ? r : JSON.stringify(r).slice(0, 300)
  }
}

/** Each step by its first start, with its last phase: the run's timeline. */
function stepsOf(records: JournalRecord[]): Array<{ step: string; phase: string; attempt: number; ms?: number }> {
  const steps = new Map<string, { step: string; phase: string; attempt: number; ms?: number }>()
  for (const r of records)
    if (r.type === 'step' && typeof r.step === 'string')
      steps.set(r.step, {
        step: r.step,
        phase: String(r.phase),
        attempt: Number(r.attempt ?? 1),
        ...(typeof r.ms === 'number' && { ms: r.ms }),
      })
  return [...steps.values()]
}

const PHASE: Record<string, string> = { start: 'running', end: 'complete', error: 'failed' }

export function RunPage({ id }: { id: string }) {
  const [records, setRecords] = useState<JournalRecord[]>([])
  const [run, setRun] = useState<Run | undefined>()
  const first = useApi<Run>(`runs/${encodeURIComponent(id)}`)
  const version = useTokenVersion()
  useEffect(() => {
    setRecords([])
    return follow(`runs/${encodeURIComponent(id)}/journal`, (event, data) => {
      if (event === 'entries') setRecords((old) => [...old, ...(data as JournalRecord[])])
      else if (event === 'run') setRun(data as Run)
    })
  }, [id, version])
  const shown = run ?? first.data
  const steps = stepsOf(records)
  return html`
    <p class="crumbs"><a href="#/runs">Runs</a> › run</p>
    <h1 class="mono">${id}</h1>
    <${ErrorLine} error=${first.error} />
    ${shown ? html`<p class="run-status">${shown.name} <${Badge} value=${shown.status} />${shown.reason ? ` ${shown.reason}` : ''}${shown.error ? html` <span class="error">${shown.error}</span>` : null}</p>` : null}
    ${shown ? html`<${RunButtons} run=${shown} />` : null}
    <h2>Steps</h2>
    ${steps.length
      ? html`<ol class="timeline steps" aria-label="Steps, in the order they started">
          ${steps.map((s) => html`<li key=${s.step} class=${s.phase === 'start' ? 'current' : ''}><span class="mono">${s.step}</span> <${Badge} value=${PHASE[s.phase] ?? s.phase} />${s.attempt > 1 ? ` attempt ${s.attempt}` : ''}${s.ms !== undefined ? html` <span class="muted">${s.ms} ms</span>` : null}</li>`)}
        </ol>`
      : html`<p class="muted">No step has started yet.</p>`}
    <h2>Journal</h2>
    <ol class="journal" aria-live="polite" aria-label="Journal entries, oldest first">
      ${records.map((r, i) => html`<li key=${r.seq ?? i} class=${`entry entry-${String(r.type ?? '')}`}><span class="when">${r.at ? when(r.at).slice(11) : ''}</span> ${describe(r)}</li>`)}
    </ol>
    ${records.length === 0 ? html`<p class="muted">No journal entries yet; they appear here as the run writes them.</p>` : null}
  `
}
